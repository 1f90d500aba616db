"""The web chat: the office page, the chat page of every channel, sign-up."""

import logging
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.contrib.auth.views import LoginView, PasswordChangeView, PasswordResetView
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST
from pydantic import ValidationError

from config.celery import queue_task
from context.finding import mission_search
from llm.gateway import available_models, default_model
from missions.export import ChannelExport
from missions.importing import ImportRejected, channel_import
from missions.selectors import (
    message_list_for_session,
    missions_in_progress,
    office_cost,
    unread_counts,
)
from missions.timeline import message_data
from office.auth import (
    Throttled,
    client_address,
    hire_allowed,
    login_retry_after,
    password_reset_allowed,
    project_allowed,
    remember_device,
    signup_allowed,
)
from office.forms import (
    EmployeeForm,
    LoginForm,
    ProjectEditForm,
    ProjectForm,
    SignupForm,
    ThrottledPasswordChangeForm,
)
from office.models import Channel, ChannelKind, Employee, Office
from office.people.services import (
    PeopleError,
    invitation_accept,
    invitation_find,
    invitation_problem,
)
from office.selectors import (
    channel_get_for_user,
    channel_ids_muted,
    channel_list_for_office,
    invitations_open,
    office_get_for_user,
    office_people,
    offices_for_user,
    time_zone_names,
)
from office.services import (
    NameTaken,
    employee_edit,
    employee_hire,
    employee_retire,
    office_open_for_user,
    project_archive,
    project_channel_create,
    project_edit,
    user_set_language,
    user_set_time_zone,
)
from office.ui import chat_strings
from sessions.models import ChatSession
from sessions.selectors import session_current, session_currents, session_list
from sessions.services import SessionNameRejected, session_rename

TIMELINE_LIMIT = 300
ENTRY_CHECK_TASK = "sessions.tasks.long_session_check_on_entry"

logger = logging.getLogger(__name__)


def _user(request: HttpRequest) -> User:
    return request.user  # type: ignore[return-value]


# The login session's key for the office the person last chose or opened a channel of.
CURRENT_OFFICE = "office"
# A new invitation link, shown on the next office page only (the owner's POST redirects
# there, so a reload neither makes another link nor shows this one again).
NEW_INVITE_LINK = "new_invite_link"


def current_office(request: HttpRequest) -> Office | None:
    """The office the person is working in now (see `office_get_for_user`)."""
    chosen = request.session.get(CURRENT_OFFICE)
    return office_get_for_user(
        user=_user(request), preferred=chosen if isinstance(chosen, int) else None
    )


def _office(request: HttpRequest) -> Office:
    office = current_office(request)
    if office is None:
        raise Http404("You have no office yet.")
    return office


def owned_office(request: HttpRequest) -> Office:
    """The current office, for what only its owner does (hiring, projects, people, the
    cost page); another person of it is refused (403)."""
    office = _office(request)
    if office.owner_id != request.user.pk:
        raise PermissionDenied(_("Only the office's owner can do this."))
    return office


def _render_home(
    request: HttpRequest,
    office: Office,
    *,
    hire_form: EmployeeForm | None = None,
    project_form: ProjectForm | None = None,
    status: int = 200,
    invite_link: str = "",
) -> HttpResponse:
    channels = list(channel_list_for_office(office=office))
    busy = missions_in_progress(office=office)
    dm_by_employee = {c.employee_id: c for c in channels if c.kind == ChannelKind.DM}
    team = [
        {"employee": e, "channel": dm_by_employee.get(e.pk), "working_on": busy.get(e.pk)}
        for e in office.employees.filter(is_active=True)
    ]
    user = _user(request)
    owner = office.owner_id == user.pk
    offices = list(offices_for_user(user=user))
    return render(
        request,
        "office/home.html",
        {
            "office": office,
            "is_owner": owner,
            "offices": offices,
            "people": office_people(office=office),
            "owns_one": owner or any(o.owner_id == user.pk for o in offices),
            "invitations": invitations_open(office_id=office.pk) if owner else [],
            "invite_link": invite_link,
            "team": team,
            "master": next((c for c in channels if c.kind == ChannelKind.MASTER), None),
            "all_hands": next((c for c in channels if c.kind == ChannelKind.ALL), None),
            "projects": [c for c in channels if c.kind == ChannelKind.PROJECT],
            "retired": office.employees.filter(is_active=False),
            "languages": settings.LANGUAGES,
            "time_zones": time_zone_names(),
            "hire_form": hire_form or EmployeeForm(office_id=office.pk, **_model_choice(None)),
            "project_form": project_form or ProjectForm(office_id=office.pk),
        },
        status=status,
    )


@login_required
def office_home(request: HttpRequest) -> HttpResponse:
    office = current_office(request)
    if office is None:
        # An account an operator made: offer to set the office up (a page load writes nothing).
        return render(request, "office/start.html", {"languages": settings.LANGUAGES})
    return _render_home(request, office, invite_link=request.session.pop(NEW_INVITE_LINK, ""))


@login_required
@require_POST
def office_start_view(request: HttpRequest) -> HttpResponse:
    """Open the person's own office (an account an operator made, or someone who joined
    another's office first) and work in it."""
    office = office_open_for_user(user=_user(request))
    request.session[CURRENT_OFFICE] = office.pk
    return redirect("office:home")


@login_required
@require_POST
def employee_hire_view(request: HttpRequest) -> HttpResponse:
    office = owned_office(request)
    form = EmployeeForm(request.POST, office_id=office.pk, **_model_choice(None))
    if form.is_valid():
        try:
            hire_allowed(user_id=office.owner_id)
        except Throttled as exc:
            form.add_error(None, exc.message)
            response = _render_home(request, office, hire_form=form, status=429)
            response["Retry-After"] = str(exc.retry_after)
            return response
        try:
            employee_hire(office=office, **form.cleaned_data)
        except NameTaken as taken:  # a look-alike hired since the form was checked
            form.add_error("name", str(taken))
            return _render_home(request, office, hire_form=form, status=400)
        messages.success(
            request, _("%(name)s joined the office.") % {"name": form.cleaned_data["name"]}
        )
        return redirect("office:home")
    # The office page again, with the form as it was typed and its errors beside it.
    return _render_home(request, office, hire_form=form, status=400)


def _model_choice(employee: Employee | None) -> dict[str, Any]:
    """What the employee form offers as models: the server's list (or any name when it
    lists none), the office's default named."""
    return {
        "models": available_models(),
        "default_model": default_model(),
        "current_model": employee.model if employee else "",
    }


@login_required
def employee_edit_view(request: HttpRequest, employee_id: int) -> HttpResponse:
    office = owned_office(request)
    employee = get_object_or_404(Employee, pk=employee_id, office=office)
    if request.method == "POST":
        if request.POST.get("action") == "retire":
            if request.POST.get("confirm") != "yes":
                # Asked first, on a page of its own: no script needed, nothing done yet.
                return render(request, "office/retire_confirm.html", {"employee": employee})
            try:
                employee_retire(employee=employee)
                messages.success(request, _("%(name)s was retired.") % {"name": employee.name})
            except ValueError:
                messages.error(request, _("The chief of staff cannot be retired."))
            return redirect("office:home")
        form = EmployeeForm(
            request.POST, office_id=office.pk, employee_id=employee.pk, **_model_choice(employee)
        )
        if form.is_valid():
            try:
                employee_edit(employee=employee, **form.cleaned_data)
            except NameTaken as taken:
                form.add_error("name", str(taken))
            else:
                messages.success(request, _("%(name)s was updated.") % {"name": employee.name})
                return redirect("office:home")
    else:
        form = EmployeeForm(
            initial={
                "name": employee.name,
                "role": employee.role,
                "persona": employee.persona,
                "model": employee.model,
            },
            office_id=office.pk,
            employee_id=employee.pk,
            **_model_choice(employee),
        )
    return render(request, "office/employee.html", {"employee": employee, "form": form})


@login_required
@require_POST
def language_view(request: HttpRequest) -> HttpResponse:
    """The person's interface language (and, for the owner, the office's notices)."""
    language = request.POST.get("language", "")
    if language not in dict(settings.LANGUAGES):
        messages.error(request, _("Unknown language."))
        return redirect("office:home")
    user_set_language(user=_user(request), language=language)
    translation.activate(language)
    messages.success(request, _("Language saved."))
    response = redirect("office:home")
    # The login page after logging out stays in the chosen language too.
    response.set_cookie(settings.LANGUAGE_COOKIE_NAME, language, samesite="Lax")
    return response


@login_required
@require_POST
def time_zone_view(request: HttpRequest) -> HttpResponse:
    """The time zone the person's times are shown in; blank goes back to the browser's."""
    try:
        user_set_time_zone(user=_user(request), time_zone=request.POST.get("time_zone", "").strip())
    except ValueError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, _("Time zone saved."))
    return redirect("office:home")


@login_required
def cost_view(request: HttpRequest) -> HttpResponse:
    """What the person's office's prompts cost: per employee and per recent mission."""
    office = owned_office(request)
    days = request.GET.get("days", "30")
    period = int(days) if days.isdigit() and 0 < int(days) <= 3650 else 30
    report = office_cost(office_id=office.pk, days=period)
    return render(request, "office/cost.html", {"office": office, **report})


@login_required
@require_POST
def project_create_view(request: HttpRequest) -> HttpResponse:
    office = owned_office(request)
    form = ProjectForm(request.POST, office_id=office.pk)
    if form.is_valid():
        try:
            project_allowed(user_id=office.owner_id)
        except Throttled as exc:
            form.add_error(None, exc.message)
            response = _render_home(request, office, project_form=form, status=429)
            response["Retry-After"] = str(exc.retry_after)
            return response
        channel = project_channel_create(
            office=office,
            name=form.cleaned_data["name"],
            members=form.cleaned_data["members"],
            lead=form.cleaned_data["lead"],
        )
        return redirect("office:chat", channel_id=channel.pk)
    return _render_home(request, office, project_form=form, status=400)


@login_required
@require_POST
def session_name_view(request: HttpRequest, channel_id: int, session_id: int) -> HttpResponse:
    """Name a session of one of the person's channels (another's is answered as missing),
    then show that session again."""
    channel = channel_get_for_user(user=_user(request), channel_id=channel_id)
    session = (
        ChatSession.objects.filter(channel=channel, pk=session_id).first() if channel else None
    )
    if session is None:
        raise Http404("No such session.")
    try:
        session_rename(session=session, title=request.POST.get("title", ""))
    except SessionNameRejected as exc:
        messages.error(request, str(exc))
    response = redirect("office:chat", channel_id=channel_id)
    response["Location"] += f"?session={session.pk}"
    return response


@login_required
@require_POST
def project_archive_view(request: HttpRequest, channel_id: int) -> HttpResponse:
    """Archive a project (out of the sidebar, read-only) or unarchive it; only its
    office's owner reaches it (another office's project is answered as missing)."""
    channel = get_object_or_404(
        Channel, pk=channel_id, office=owned_office(request), kind=ChannelKind.PROJECT
    )
    archived = request.POST.get("archived") == "1"
    project_archive(channel=channel, archived=archived)
    done = _("%(name)s was archived.") if archived else _("%(name)s was unarchived.")
    messages.success(request, done % {"name": channel.name})
    return redirect("office:chat", channel_id=channel.pk)


@login_required
@require_POST
def import_view(request: HttpRequest) -> HttpResponse:
    """A conversation exported as JSON (the chat's Export), uploaded: a new project
    channel of the person's office holding it (missions.importing)."""
    office = owned_office(request)
    upload = request.FILES.get("file")
    if upload is None:
        messages.error(request, _("Choose the exported JSON file to import."))
        return redirect("office:home")
    try:
        data = ChannelExport.model_validate_json(upload.read(settings.MAX_REQUEST_BODY_BYTES))
        channel = channel_import(office=office, data=data, user=_user(request))
    except (ValidationError, ImportRejected) as exc:
        problem = str(exc) if isinstance(exc, ImportRejected) else _("It is not an export.")
        messages.error(
            request,
            _("Could not import %(name)s: %(problem)s") % {"name": upload.name, "problem": problem},
        )
        return redirect("office:home")
    messages.success(request, _("Imported into %(name)s.") % {"name": channel.name})
    return redirect("office:chat", channel_id=channel.pk)


@login_required
def project_edit_view(request: HttpRequest, channel_id: int) -> HttpResponse:
    """A project's name, lead and members; only its office's owner reaches it (another
    office's project is answered as missing)."""
    office = owned_office(request)
    channel = get_object_or_404(
        Channel.objects.select_related("lead", "retired_lead"),
        pk=channel_id,
        office=office,
        kind=ChannelKind.PROJECT,
    )
    if request.method == "POST":
        form = ProjectEditForm(request.POST, office_id=office.pk)
        if form.is_valid():
            project_edit(
                channel=channel,
                name=form.cleaned_data["name"],
                lead=form.cleaned_data["lead"],
                members=form.cleaned_data["members"],
            )
            messages.success(request, _("%(name)s was updated.") % {"name": channel.name})
            return redirect("office:chat", channel_id=channel.pk)
        status = 400
    else:
        form = ProjectEditForm(
            initial={
                "name": channel.name,
                "lead": channel.lead_id,
                "members": list(
                    channel.members.filter(is_active=True).values_list("pk", flat=True)
                ),
            },
            office_id=office.pk,
        )
        status = 200
    return render(request, "office/project.html", {"project": channel, "form": form}, status=status)


@login_required
def search_view(request: HttpRequest) -> HttpResponse:
    """Search across the office's missions; each result opens its mission in its channel."""
    office = _office(request)
    query = request.GET.get("q", "").strip()[: settings.MAX_INSTRUCTION_CHARS]
    hits = mission_search(user=_user(request), text=query) if query else []
    channels = {c.pk: c for c in channel_list_for_office(office=office)}
    currents = session_currents(channel_ids=list(channels))
    results = []
    for hit in hits:
        channel = channels.get(hit.channel)
        if channel is None:
            continue  # another office of the same person: listed from its own page
        title, kind_label = _channel_title(channel)
        current = currents.get(channel.pk)
        past = current is None or current.pk != hit.session
        results.append(
            {
                "hit": hit,
                "channel_title": title,
                "kind_label": kind_label,
                "url": f"/c/{channel.pk}/"
                + (f"?session={hit.session}" if past else "")
                + f"#mission-{hit.label}",
            }
        )
    return render(
        request,
        "office/search.html",
        {"office": office, "query": query, "results": results, "searched": bool(query)},
    )


@login_required
def chat(request: HttpRequest, channel_id: int) -> HttpResponse:
    channel = channel_get_for_user(user=_user(request), channel_id=channel_id)
    if channel is None:
        raise Http404("No such channel.")
    # The office page and search go on from the office of the channel last opened.
    if request.session.get(CURRENT_OFFICE) != channel.office_id:
        request.session[CURRENT_OFFICE] = channel.office_id
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
    archived = channel.archived_at is not None
    read_only = shown.pk != current.pk or retired or archived
    team = list(
        channel.members.filter(is_active=True)
        if channel.kind == ChannelKind.PROJECT
        else channel.office.employees.filter(is_active=True)
    )
    members = [e.name for e in team]
    title, kind_label = _channel_title(channel)
    sidebar = _sidebar(request, channel)
    return render(
        request,
        "office/chat.html",
        {
            "channel": channel,
            "office": channel.office,
            "title": title,
            "kind_label": kind_label,
            "sessions": sessions,
            "shown": shown,
            "current": current,
            "read_only": read_only,
            "retired": retired,
            "archived": archived,
            "members": members,
            # An empty timeline says what the channel is (and what this session goes on from).
            "intro": "" if rows else _channel_intro(channel, team),
            "carried_from": None if rows else shown.carried_over_from,
            "offline": settings.LLM_PROVIDER == "offline",
            "sidebar": sidebar,
            "ui": chat_strings(),
            "boot": {
                "channel": channel.pk,
                "kind": channel.kind,
                "session": shown.pk,
                "current_session": current.pk,
                "read_only": read_only,
                "employee": channel.employee.name if channel.employee else None,
                "employee_id": channel.employee_id,
                "office": channel.office_id,
                # The reader: their own instructions are "You", another person's named.
                "me": _user(request).pk,
                "members": members,
                "messages": [message_data(m).model_dump(mode="json") for m in rows],
                "max_chars": settings.MAX_INSTRUCTION_CHARS,
                "muted": channel_ids_muted(user_id=_user(request).pk, office_id=channel.office_id),
            },
        },
    )


# The sidebar's order: where work is handed out first, then people, then projects.
_SIDEBAR_ORDER: dict[str, int] = {
    ChannelKind.MASTER: 0,
    ChannelKind.ALL: 1,
    ChannelKind.DM: 2,
    ChannelKind.PROJECT: 3,
}


def _sidebar(request: HttpRequest, shown: Channel) -> list[dict[str, Any]]:
    """The person's channels beside the chat, each with what it holds unread. The channel
    on screen shows none: the page marks it read as it opens. A retired employee's
    channel, and an archived project, stays listed only while it is the one shown."""
    channels = [
        c
        for c in channel_list_for_office(office=shown.office)
        if c.pk == shown.pk
        or (c.archived_at is None and (c.employee is None or c.employee.is_active))
    ]
    channels.sort(key=lambda c: (_SIDEBAR_ORDER.get(c.kind, 9), c.name.casefold()))
    unread = unread_counts(user_id=_user(request).pk, channel_ids=[c.pk for c in channels])
    entries = []
    for c in channels:
        title, kind_label = _channel_title(c)
        entries.append(
            {
                "id": c.pk,
                "title": title,
                "kind": c.kind,
                "kind_label": kind_label,
                "current": c.pk == shown.pk,
                "unread": 0 if c.pk == shown.pk else unread.get(c.pk, 0),
            }
        )
    return entries


def _channel_title(channel: Channel) -> tuple[str, str]:
    """The channel's heading and the label of its kind, each said once: the master and
    all-hands channels are named after their kind."""
    if channel.kind == ChannelKind.MASTER:
        return _("Master channel"), ""
    if channel.kind == ChannelKind.ALL:
        return _("All hands"), ""
    if channel.kind == ChannelKind.DM:
        return channel.name, _("1:1")
    return channel.name, _("Project")


def _channel_intro(channel: Channel, team: list[Employee]) -> str:
    master = next((e for e in channel.office.employees.all() if e.is_master), None)
    chief = master.name if master else _("the chief of staff")
    if channel.kind == ChannelKind.DM and channel.employee is not None:
        return _(
            "Your 1:1 channel with %(name)s (%(role)s). Give %(name)s a mission below; "
            "only the two of you see this conversation."
        ) % {"name": channel.employee.name, "role": channel.employee.role}
    if channel.kind == ChannelKind.MASTER:
        return _(
            "The master channel: %(chief)s, your chief of staff, answers here and hands work "
            "to the team. Name someone with @name to delegate to them."
        ) % {"chief": chief}
    if channel.kind == ChannelKind.ALL:
        return _(
            "All hands: the whole office is here. %(chief)s answers unless you address "
            "someone with @name."
        ) % {"chief": chief}
    lead = channel.lead.name if channel.lead else chief
    return _(
        "The project channel %(project)s, with %(members)s. %(lead)s leads and answers "
        "what names nobody; address a member with @name."
    ) % {
        "project": channel.name,
        "members": ", ".join(e.name for e in team) or _("no members yet"),
        "lead": lead,
    }


def signup(request: HttpRequest) -> HttpResponse:
    if not settings.SIGNUP_ENABLED:
        raise Http404("Sign-up is turned off on this server.")
    if request.user.is_authenticated:
        return redirect("office:home")
    form = SignupForm(request.POST or None)
    # Signing up through an invitation link: the account joins that office.
    invite = str(request.POST.get("invite") or request.GET.get("invite") or "")[:100]
    invitation = invitation_find(secret=invite) if invite else None
    if invitation is not None and invitation_problem(invitation):
        invitation = None
    shown = {
        "form": form,
        "invite": invite if invitation else "",
        "invited_to": invitation.office.name if invitation else "",
    }
    if request.method == "POST" and form.is_valid():
        try:
            # Each sign-up makes an office with its team: limited per address.
            signup_allowed(address=client_address(request))
        except Throttled as exc:
            form.add_error(None, exc.message)
            response = render(request, "registration/signup.html", shown, status=429)
            response["Retry-After"] = str(exc.retry_after)
            return response
        user = form.save()
        login(request, user)
        language = form.cleaned_data["language"] or translation.get_language()
        if language not in dict(settings.LANGUAGES):
            language = settings.LANGUAGE_CODE
        joined = _join_on_signup(request, invite if invitation else "", user)
        if not joined:
            # The office speaks the sign-up language from the start, and so does the page.
            office_open_for_user(user=user, language=language)
        user_set_language(user=user, language=language)
        translation.activate(language)
        response = redirect("office:home")
        response.set_cookie(settings.LANGUAGE_COOKIE_NAME, language, samesite="Lax")
        return response
    return render(request, "registration/signup.html", shown)


def _join_on_signup(request: HttpRequest, invite: str, user: User) -> bool:
    """Join the office of the invitation a new account signed up through; False (with a
    message) if there is none, or it stopped working meanwhile."""
    if not invite:
        return False
    try:
        office = invitation_accept(secret=invite, user=user)
    except PeopleError as exc:
        messages.error(request, exc.message)
        return False
    request.session[CURRENT_OFFICE] = office.pk
    messages.success(request, _("You joined %(name)s.") % {"name": office.name})
    return True


class ThrottledLoginView(LoginView):
    """Django's log-in page; refused by the throttle, it answers 429 with Retry-After."""

    form_class = LoginForm

    def form_valid(self, form: Any) -> HttpResponse:
        response = super().form_valid(form)
        # Next time, this browser's attempts on this account are counted apart from
        # everyone else's guesses.
        remember_device(response, request=self.request, username=form.get_user().get_username())
        return response

    def form_invalid(self, form: Any) -> HttpResponse:
        response = super().form_invalid(form)
        retry_after = login_retry_after(self.request)
        if retry_after is not None:
            response.status_code = 429
            response["Retry-After"] = str(retry_after)
        return response


class ThrottledPasswordChangeView(PasswordChangeView):
    """Django's password-change page, whose old password is checked like a log-in's (a
    stolen session must not be a way to test passwords): counted first, refused with 429
    and Retry-After once over."""

    form_class = ThrottledPasswordChangeForm

    def get_form_kwargs(self) -> dict[str, Any]:
        kwargs = super().get_form_kwargs()
        kwargs["request"] = self.request
        return kwargs

    def form_invalid(self, form: Any) -> HttpResponse:
        response = super().form_invalid(form)
        if form.retry_after is not None:
            response.status_code = 429
            response["Retry-After"] = str(form.retry_after)
        return response


class ThrottledPasswordResetView(PasswordResetView):
    """Django's reset-request page (routed only when mail is configured), limited per
    requesting address and per recipient: each request sends an e-mail to whoever the
    address names."""

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            password_reset_allowed(
                address=client_address(request), email=str(request.POST.get("email", ""))
            )
        except Throttled as exc:
            response = HttpResponse(exc.message, status=429, content_type="text/plain")
            response["Retry-After"] = str(exc.retry_after)
            return response
        return super().post(request, *args, **kwargs)
