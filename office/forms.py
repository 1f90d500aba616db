import unicodedata
from typing import Any

from django import forms
from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm, PasswordChangeForm, UserCreationForm
from django.core.validators import ProhibitNullCharactersValidator
from django.utils import translation
from django.utils.translation import gettext_lazy as _

from language.storable import BAD_TEXT, text_problem
from office.auth import (
    login_attempt_allowed_for,
    login_attempt_succeeded,
    login_retry_after,
    throttled_message,
)
from office.models import PERSONA_MAX_CHARS, Employee, Office
from office.services import NameTaken, employee_name_check


def storable_text(value: str) -> None:
    """The socket's and the API's rule on text (`push.frames.text_problem`), as a
    form validator."""
    problem = text_problem(value)
    if problem:
        raise forms.ValidationError(problem, code=BAD_TEXT)


class StorableText(forms.Form):
    """Every text field refuses what cannot be stored (a NUL, a lone surrogate), by the
    one rule of every edge and with its code, in place of Django's own NUL check."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for field in self.fields.values():  # the form's own copies
            if isinstance(field, forms.CharField):
                kept = [
                    v
                    for v in field.validators
                    if not isinstance(v, ProhibitNullCharactersValidator)
                ]
                field.validators = [*kept, storable_text]


class EmployeeForm(StorableText):
    name = forms.RegexField(
        regex=r"^[\w.-]+$",
        max_length=80,
        label=_("Name"),
        help_text=_("One word, used for @mentions."),
        error_messages={"invalid": _("Use one word: letters, digits, . or -")},
    )
    role = forms.CharField(max_length=120, label=_("Role"))
    persona = forms.CharField(
        max_length=PERSONA_MAX_CHARS,
        widget=forms.Textarea(attrs={"rows": 4}),
        label=_("Persona"),
        help_text=_("How this employee thinks and writes (the system prompt)."),
    )

    model = forms.CharField(
        max_length=100,
        required=False,
        label=_("Model"),
        help_text=_("Which model of the model server answers for this employee."),
    )

    def __init__(
        self,
        *args: object,
        office_id: int,
        employee_id: int | None = None,
        models: list[str] | None = None,
        default_model: str = "",
        current_model: str = "",
        **kwargs: object,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.office_id = office_id
        self.employee_id = employee_id
        self.models = models or []
        if self.models:
            # The server's list, and the employee's own model if the server no longer
            # lists it (kept until someone chooses another).
            offered = sorted({*self.models, *([current_model] if current_model else [])})
            default = _("The office's default (%(model)s)") % {"model": default_model}
            self.fields["model"] = forms.ChoiceField(
                choices=[("", default), *((m, m) for m in offered)],
                required=False,
                label=self.fields["model"].label,
                help_text=self.fields["model"].help_text,
            )
            self.offered = set(offered)

    def clean_name(self) -> str:
        # Stored as a reader will see it (fullwidth letters become plain ones).
        name: str = unicodedata.normalize("NFKC", self.cleaned_data["name"])
        try:
            employee_name_check(
                office=Office(pk=self.office_id), name=name, employee_id=self.employee_id
            )
        except NameTaken as taken:
            raise forms.ValidationError(str(taken), code="look_alike") from None
        return name


class ProjectForm(StorableText):
    name = forms.CharField(max_length=120, label=_("Name"))
    members = forms.ModelMultipleChoiceField(
        queryset=Employee.objects.none(), widget=forms.CheckboxSelectMultiple, label=_("Members")
    )
    lead = forms.ModelChoiceField(queryset=Employee.objects.none(), label=_("Lead"))

    def __init__(self, *args: object, office_id: int, **kwargs: object) -> None:
        # Its own ids: it shares the office page with the hire form, whose fields have
        # the same names (a label must name one field).
        kwargs.setdefault("auto_id", "id_project_%s")
        super().__init__(*args, **kwargs)
        team = Employee.objects.filter(office_id=office_id, is_active=True, is_master=False)
        self.fields["members"].queryset = team  # type: ignore[attr-defined]
        self.fields["lead"].queryset = team  # type: ignore[attr-defined]


class ProjectEditForm(ProjectForm):
    """A project's name, lead and members. The lead is one of the members (added if left
    unticked, as when the project was opened)."""

    def __init__(self, *args: object, office_id: int, **kwargs: object) -> None:
        kwargs.setdefault("auto_id", "id_%s")
        super().__init__(*args, office_id=office_id, **kwargs)
        self.fields["lead"].error_messages["required"] = _("Choose who leads the project.")
        self.fields["lead"].error_messages["invalid_choice"] = _(
            "Choose a lead from the active team."
        )
        self.fields["members"].error_messages["invalid_choice"] = _(
            "Members are chosen from the active team."
        )
        self.fields["members"].required = False


class SignupForm(StorableText, UserCreationForm):
    """Django's sign-up form, held to the same text rule as every other edge, and the
    language the new office speaks from the start (its team, its project, its notices)."""

    language = forms.ChoiceField(
        label=_("Language of your office"), choices=settings.LANGUAGES, required=False
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        active = translation.get_language() or settings.LANGUAGE_CODE
        codes = dict(settings.LANGUAGES)
        self.fields["language"].initial = active if active in codes else settings.LANGUAGE_CODE


class ThrottledLoginMixin:
    """A log-in form that says so when the throttle (office.auth) refused the attempt,
    instead of calling a right password wrong."""

    request: Any

    def clean(self) -> Any:
        try:
            return super().clean()  # type: ignore[misc]
        except forms.ValidationError:
            retry_after = login_retry_after(self.request) if self.request else None
            if retry_after is not None:
                raise forms.ValidationError(
                    throttled_message(retry_after), code="throttled"
                ) from None
            raise


class LoginForm(ThrottledLoginMixin, AuthenticationForm):
    pass


class AdminLoginForm(ThrottledLoginMixin, AdminAuthenticationForm):
    pass


class ThrottledPasswordChangeForm(PasswordChangeForm):
    """Django's password-change form; its old password is an attempt at the account like a
    log-in's, from this request's source (office.auth): counted before it is checked,
    refused unchecked once over, given back when right."""

    retry_after: int | None = None

    def __init__(self, user: Any, *args: Any, request: Any = None, **kwargs: Any) -> None:
        super().__init__(user, *args, **kwargs)
        self.request = request

    def clean_old_password(self) -> str:
        username = self.user.get_username()
        verdict, charges = login_attempt_allowed_for(self.request, username)
        if not verdict.allowed:
            self.retry_after = verdict.retry_after
            raise forms.ValidationError(throttled_message(verdict.retry_after), code="throttled")
        old: str = super().clean_old_password()
        login_attempt_succeeded(self.request, username, charges)
        return old
