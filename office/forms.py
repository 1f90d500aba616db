from django import forms

from office.models import Employee


class EmployeeForm(forms.Form):
    name = forms.RegexField(
        regex=r"^[\w.-]+$",
        max_length=80,
        help_text="One word, used for @mentions.",
        error_messages={"invalid": "Use one word: letters, digits, . or -"},
    )
    role = forms.CharField(max_length=120)
    persona = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text="How this employee thinks and writes (the system prompt).",
    )

    def __init__(
        self, *args: object, office_id: int, employee_id: int | None = None, **kwargs: object
    ) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.office_id = office_id
        self.employee_id = employee_id

    def clean_name(self) -> str:
        name: str = self.cleaned_data["name"]
        taken = Employee.objects.filter(office_id=self.office_id, name__iexact=name)
        if self.employee_id:
            taken = taken.exclude(pk=self.employee_id)
        if taken.exists():
            raise forms.ValidationError("Someone in this office already has that name.")
        return name


class ProjectForm(forms.Form):
    name = forms.CharField(max_length=120)
    members = forms.ModelMultipleChoiceField(
        queryset=Employee.objects.none(), widget=forms.CheckboxSelectMultiple
    )
    lead = forms.ModelChoiceField(queryset=Employee.objects.none())

    def __init__(self, *args: object, office_id: int, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        team = Employee.objects.filter(office_id=office_id, is_active=True, is_master=False)
        self.fields["members"].queryset = team  # type: ignore[attr-defined]
        self.fields["lead"].queryset = team  # type: ignore[attr-defined]
