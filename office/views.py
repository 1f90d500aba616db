"""The web chat: the office page, the chat page of every channel, sign-up."""

import logging

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import translation
from django.views.decorators.http import require_POST

from config.celery import queue_task
from missions.selectors import message_list_for_session, missions_in_progress
from missions.timeline import message_data
from office.forms import EmployeeForm, ProjectForm, SignupForm
from office.models import ChannelKind, Employee, Office
from office.selectors import channel_get_for_user, channel_list_for_office, office_get_for_user
from office.services import (
    employee_edit,
    employee_hire,
    employee_retire,
    office_open_for_user,
    office_set_language,
    project_channel_create,
)
from sessions.selectors import session_current, session_list

TIMELINE_LIMIT = 300
ENTRY_CHECK_TASK = "sessions.tasks.long_session_check_on_entry"

logger = logging.getLogger(__name__)


def _user(request: HttpRequest) -> User:
    return request.user  # type: ignore[return-value]


def _office(request: HttpRequest) -> Office:
    office = office_get_for_user(user=_user(request))
    if office is None:
        raise Http404("You have no office yet.")
    return office


@login_required
def office_home(request: HttpRequest) -> HttpResponse:
    office = office_get_for_user(user=_user(request))
    if office is None:
        # An account an operator made: offer to set the office up (a page load writes nothing).
        return render(request, "office/start.html", {})
    channels = list(channel_list_for_office(office=office))
    busy = missions_in_progress(office=office)
    dm_by_employee = {c.employee_id: c for c in channels if c.kind == ChannelKind.DM}
    team = [
        {"employee": e, "channel": dm_by_employee.get(e.pk), "working_on": busy.get(e.pk)}
        for e in office.employees.filter(is_active=True)
    ]
    return render(
        request,
        "office/home.html",
        {
            "office": office,
            "team": team,
            "master": next((c for c in channels if c.kind == ChannelKind.MASTER), None),
            "all_hands": next((c for c in channels if c.kind == ChannelKind.ALL), None),
            "projects": [c for c in channels if c.kind == ChannelKind.PROJECT],
            "retired": office.employees.filter(is_active=False),
            "hire_form": EmployeeForm(office_id=office.pk),
            "project_form": ProjectForm(office_id=office.pk),
        },
    )


@login_required
@require_POST
def office_start_view(request: HttpRequest) -> HttpResponse:
    office_open_for_user(user=_user(request))
    return redirect("office:home")


@login_required
@require_POST
def employee_hire_view(request: HttpRequest) -> HttpResponse:
    office = _office(request)
    form = EmployeeForm(request.POST, office_id=office.pk)
    if form.is_valid():
        employee_hire(office=office, **form.cleaned_data)
        messages.success(request, f"{form.cleaned_data['name']} joined the office.")
    else:
        for field, errors in form.errors.items():
            messages.error(request, f"{field}: {' '.join(str(e) for e in errors)}")
    return redirect("office:home")


@login_required
def employee_edit_view(request: HttpRequest, employee_id: int) -> HttpResponse:
    office = _office(request)
    employee = get_object_or_404(Employee, pk=employee_id, office=office)
    if request.method == "POST":
        if request.POST.get("action") == "retire":
            try:
                employee_retire(employee=employee)
                messages.success(request, f"{employee.name} was retired.")
            except ValueError as exc:
                messages.error(request, str(exc))
            return redirect("office:home")
        form = EmployeeForm(request.POST, office_id=office.pk, employee_id=employee.pk)
        if form.is_valid():
            employee_edit(employee=employee, **form.cleaned_data)
            messages.success(request, f"{employee.name} was updated.")
            return redirect("office:home")
    else:
        form = EmployeeForm(
            initial={"name": employee.name, "role": employee.role, "persona": employee.persona},
            office_id=office.pk,
            employee_id=employee.pk,
        )
    return render(request, "office/employee.html", {"employee": employee, "form": form})


@login_required
@require_POST
def language_view(request: HttpRequest) -> HttpResponse:
    """The owner's language: notices and the interface follow it."""
    office = _office(request)
    language = request.POST.get("language", "")
    if language in dict(settings.LANGUAGES):
        office_set_language(office=office, language=language)
        translation.activate(language)
        response = redirect("office:home")
        response.set_cookie(settings.LANGUAGE_COOKIE_NAME, language, samesite="Lax")
        return response
    messages.error(request, "Unknown language.")
    return redirect("office:home")


@login_required
@require_POST
def project_create_view(request: HttpRequest) -> HttpResponse:
    office = _office(request)
    form = ProjectForm(request.POST, office_id=office.pk)
    if form.is_valid():
        channel = project_channel_create(
            office=office,
            name=form.cleaned_data["name"],
            members=form.cleaned_data["members"],
            lead=form.cleaned_data["lead"],
        )
        return redirect("office:chat", channel_id=channel.pk)
    for field, errors in form.errors.items():
        messages.error(request, f"{field}: {' '.join(str(e) for e in errors)}")
    return redirect("office:home")


@login_required
def chat(request: HttpRequest, channel_id: int) -> HttpResponse:
    channel = channel_get_for_user(user=_user(request), channel_id=channel_id)
    if channel is None:
        raise Http404("No such channel.")
    current = session_current(channel=channel)
    if current is None:
        # Channels open their first session when they are made; none means broken data.
        raise Http404("This channel has no session.")
    sessions = session_list(channel=channel)
    shown = current
    wanted = request.GET.get("session")
    if wanted and wanted.isdigit():
        shown = next((s for s in sessions if s.pk == int(wanted)), current)
    rows = message_list_for_session(session=shown, limit=TIMELINE_LIMIT)
    if shown.pk == current.pk:
        # Entering the channel is one of the two moments the long-session notice is due.
        try:
            queue_task(ENTRY_CHECK_TASK, channel.pk)
        except Exception as exc:
            # The task queue is down: the notice waits for the next entry or instruction;
            # the page does not wait for the queue.
            logger.warning("could not queue the entry check of channel %s: %s", channel.pk, exc)
    # A retired employee's channel stays to be read; it takes no more work.
    retired = channel.employee is not None and not channel.employee.is_active
    read_only = shown.pk != current.pk or retired
    members = [
        e.name
        for e in (
            channel.members.filter(is_active=True)
            if channel.kind == ChannelKind.PROJECT
            else channel.office.employees.filter(is_active=True)
        )
    ]
    return render(
        request,
        "office/chat.html",
        {
            "channel": channel,
            "office": channel.office,
            "sessions": sessions,
            "shown": shown,
            "current": current,
            "read_only": read_only,
            "retired": retired,
            "boot": {
                "channel": channel.pk,
                "kind": channel.kind,
                "session": shown.pk,
                "current_session": current.pk,
                "read_only": read_only,
                "employee": channel.employee.name if channel.employee else None,
                "employee_id": channel.employee_id,
                "office": channel.office_id,
                "members": members,
                "messages": [message_data(m).model_dump(mode="json") for m in rows],
                "max_chars": settings.MAX_INSTRUCTION_CHARS,
            },
        },
    )


def signup(request: HttpRequest) -> HttpResponse:
    if not settings.SIGNUP_ENABLED:
        raise Http404("Sign-up is turned off on this server.")
    if request.user.is_authenticated:
        return redirect("office:home")
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user)
        office_open_for_user(user=user)
        return redirect("office:home")
    return render(request, "registration/signup.html", {"form": form})
