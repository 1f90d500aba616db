"""The office page's people: inviting, joining by a link, leaving, switching offices."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from office.auth import Throttled, invite_allowed
from office.people.services import (
    PeopleError,
    invitation_accept,
    invitation_create,
    invitation_find,
    invitation_problem,
    invitation_withdraw,
    member_remove,
)
from office.selectors import office_member, offices_for_user
from office.views import (
    CURRENT_OFFICE,
    NEW_INVITE_LINK,
    _render_home,
    current_office,
    owned_office,
)


def _user(request: HttpRequest) -> User:
    return request.user  # type: ignore[return-value]


@login_required
@require_POST
def invite_view(request: HttpRequest) -> HttpResponse:
    """A new invitation link, shown once on the office page the owner is sent back to
    (only its digest is kept)."""
    office = owned_office(request)
    try:
        invite_allowed(user_id=office.owner_id)
    except Throttled as exc:
        messages.error(request, exc.message)
        response = _render_home(request, office, status=429)
        response["Retry-After"] = str(exc.retry_after)
        return response
    invitation = invitation_create(office=office, by=_user(request))
    link = request.build_absolute_uri(reverse("office:join", args=[invitation.secret]))
    request.session[NEW_INVITE_LINK] = link
    return redirect("office:home")


@login_required
@require_POST
def invitation_withdraw_view(request: HttpRequest, invitation_id: int) -> HttpResponse:
    office = owned_office(request)
    if not invitation_withdraw(office=office, invitation_id=invitation_id):
        raise Http404("No such invitation.")
    messages.success(request, _("The invitation was withdrawn."))
    return redirect("office:home")


@login_required
@require_POST
def member_remove_view(request: HttpRequest, user_id: int) -> HttpResponse:
    """The owner takes a person out of the office."""
    office = owned_office(request)
    person = User.objects.filter(pk=user_id).first()
    try:
        removed = person is not None and member_remove(office=office, user_id=user_id)
    except PeopleError as exc:
        messages.error(request, exc.message)
        return redirect("office:home")
    if not removed or person is None:
        raise Http404("No such person in this office.")
    messages.success(request, _("%(name)s left the office.") % {"name": person.get_username()})
    return redirect("office:home")


@login_required
@require_POST
def leave_view(request: HttpRequest) -> HttpResponse:
    """A person leaves the office they are working in (its owner cannot)."""
    office = current_office(request)
    if office is None:
        raise Http404("You have no office yet.")
    try:
        member_remove(office=office, user_id=_user(request).pk)
    except PeopleError as exc:
        messages.error(request, exc.message)
        return redirect("office:home")
    request.session.pop(CURRENT_OFFICE, None)
    messages.success(request, _("You left %(name)s.") % {"name": office.name})
    return redirect("office:home")


@login_required
@require_POST
def switch_view(request: HttpRequest) -> HttpResponse:
    """Work in another of the person's offices."""
    wanted = request.POST.get("office", "")
    office = (
        offices_for_user(user=_user(request)).filter(pk=int(wanted)).first()
        if wanted.isdigit()
        else None
    )
    if office is None:
        raise Http404("No such office.")
    request.session[CURRENT_OFFICE] = office.pk
    return redirect("office:home")


def join_view(request: HttpRequest, secret: str) -> HttpResponse:
    """An invitation link: who invites to which office, and a button to join. Someone
    signed out is offered to log in or sign up, and comes back here (sign-up joins at
    once, without an office of their own)."""
    invitation = invitation_find(secret=secret)
    if invitation is None:
        invalid = _("This invitation link is not valid.")
        return render(request, "office/join.html", {"problem": invalid}, status=404)
    user = request.user
    member = user.is_authenticated and office_member(
        user_id=user.pk, office_id=invitation.office_id
    )
    problem = None if member else invitation_problem(invitation)
    if request.method == "POST" and user.is_authenticated and problem is None:
        try:
            office = invitation_accept(secret=secret, user=_user(request))
        except PeopleError as exc:
            problem = exc.message
        else:
            request.session[CURRENT_OFFICE] = office.pk
            if not member:
                messages.success(request, _("You joined %(name)s.") % {"name": office.name})
            return redirect("office:home")
    return render(
        request,
        "office/join.html",
        {
            "invitation": invitation,
            "office": invitation.office,
            "inviter": invitation.created_by.get_username(),
            "problem": problem,
            "member": member,
            "here": request.path,
            "secret": secret,
        },
        status=410 if problem else 200,
    )
