from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from office.selectors import channel_list_for_office, office_list_for_user


@login_required
def office_home(request: HttpRequest) -> HttpResponse:
    offices = [
        {"office": office, "channels": list(channel_list_for_office(office=office))}
        for office in office_list_for_user(user=request.user)
    ]
    return render(request, "office/home.html", {"offices": offices})
