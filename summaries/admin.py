from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext, gettext_lazy, ngettext

from office.admin import OfficeScopedAdmin
from summaries.admin_html import (
    diff_html,
    index_labels,
    prompt_text_html,
    render_state_html,
    revision_producer,
    verifier_report_html,
)
from summaries.compaction import compaction_queue
from summaries.models import RollingSummary, SummaryRevision
from summaries.render import render_summary
from summaries.schemas import SummaryState
from summaries.selectors import summary_seq_index
from summaries.services import summary_rollback


class SummaryRevisionInline(admin.TabularInline):
    model = SummaryRevision
    extra = 0
    fields = (
        "version",
        "kind",
        "folded_through_seq",
        "made_by",
        "verified",
        "created_at",
        "links",
    )
    readonly_fields = fields
    can_delete = False
    show_change_link = True
    ordering = ("-version",)

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description=gettext_lazy("provider"))
    def made_by(self, obj: SummaryRevision) -> str:
        return revision_producer(obj)

    @admin.display(description=gettext_lazy("verified"), boolean=True)
    def verified(self, obj: SummaryRevision) -> bool:
        return bool(obj.verifier_report.get("ok"))

    @admin.display(description="")
    def links(self, obj: SummaryRevision) -> SafeString:
        diff = reverse("admin:summaries_summaryrevision_diff") + f"?a={obj.pk}"
        return format_html('<a href="{}">{}</a>', diff, gettext("diff with previous"))


@admin.register(RollingSummary)
class RollingSummaryAdmin(OfficeScopedAdmin):
    office_path = "session__channel__office"
    list_display = (
        "session",
        "office_name",
        "channel",
        "version",
        "folded_through_seq",
        "chars",
        "carry_over_pending",
        "fold_refused_at",
        "updated_at",
    )
    search_fields = ("text", "session__channel__name", "session__channel__office__name")
    list_filter = (
        "session__channel__kind",
        "carry_over_pending",
        ("fold_refused_at", admin.EmptyFieldListFilter),
    )
    list_select_related = ("session__channel__office",)
    readonly_fields = (
        "session",
        "version",
        "folded_through_seq",
        "carry_over_pending",
        "fold_refused_at",
        "refusal",
        "structured",
        "prompt_text",
        "updated_at",
    )
    exclude = ("state", "text", "fold_findings")
    inlines = [SummaryRevisionInline]
    actions = ["refold"]

    @admin.display(description=gettext_lazy("channel"))
    def channel(self, obj: RollingSummary) -> str:
        return str(obj.session.channel)

    @admin.display(description=gettext_lazy("fold findings"))
    def refusal(self, obj: RollingSummary) -> SafeString:
        """What the verifier found in the fold it refused, one finding a line."""
        if not obj.fold_findings:
            return format_html("{}", "—")
        return format_html(
            "<ul>{}</ul>", format_html_join("", "<li>{}</li>", ((f,) for f in obj.fold_findings))
        )

    @admin.display(description=gettext_lazy("chars"))
    def chars(self, obj: RollingSummary) -> int:
        return len(obj.text)

    @admin.display(description=gettext_lazy("prompt text"))
    def prompt_text(self, obj: RollingSummary) -> SafeString:
        # As a prompt carries it: the stored text cites seqs, the prompt the numbers the
        # person sees (context.loading).
        if not obj.text:
            return prompt_text_html("")
        labels = index_labels(summary_seq_index(session=obj.session))
        return prompt_text_html(
            render_summary(SummaryState.model_validate(obj.state or {}), labels)
        )

    @admin.display(description=gettext_lazy("summary"))
    def structured(self, obj: RollingSummary) -> SafeString:
        state = SummaryState.model_validate(obj.state or {})
        return render_state_html(state, summary_seq_index(session=obj.session))

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.action(description=gettext_lazy("Re-fold from the original missions (parallel blocks)"))
    def refold(self, request: HttpRequest, queryset: QuerySet[RollingSummary]) -> None:
        for summary in queryset:
            blocks = compaction_queue(session_id=summary.session_id, from_scratch=True)
            queued = ngettext(
                "re-fold queued in %(n)d block", "re-fold queued in %(n)d blocks", blocks
            ) % {"n": blocks}
            self.log_change(request, summary, queued)
            self.message_user(
                request,
                gettext("%(session)s: %(queued)s.")
                % {"session": summary.session, "queued": queued},
            )


@admin.register(SummaryRevision)
class SummaryRevisionAdmin(OfficeScopedAdmin):
    office_path = "summary__session__channel__office"
    list_display = (
        "summary",
        "office_name",
        "version",
        "kind",
        "folded_through_seq",
        "made_by",
        "verified",
        "created_at",
    )
    list_filter = ("kind", "provider")
    search_fields = ("after_text",)
    list_select_related = ("summary__session__channel__office",)
    readonly_fields = (
        "summary",
        "version",
        "kind",
        "folded_through_seq",
        "made_by",
        "created_at",
        "after",
        "diff",
        "report",
        "folded_mission_ids",
    )
    exclude = ("before_state", "after_state", "before_text", "after_text", "verifier_report")
    change_form_template = "admin/summaries/summaryrevision/change_form.html"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return request.method == "GET" and super().has_change_permission(request, obj)

    @admin.display(description=gettext_lazy("verified"), boolean=True)
    def verified(self, obj: SummaryRevision) -> bool:
        return bool(obj.verifier_report.get("ok"))

    @admin.display(description=gettext_lazy("provider"), ordering="provider")
    def made_by(self, obj: SummaryRevision) -> str:
        return revision_producer(obj)

    @admin.display(description=gettext_lazy("state after"))
    def after(self, obj: SummaryRevision) -> SafeString:
        return render_state_html(
            SummaryState.model_validate(obj.after_state or {}),
            summary_seq_index(session=obj.summary.session),
        )

    @admin.display(description=gettext_lazy("diff with the state before"))
    def diff(self, obj: SummaryRevision) -> SafeString:
        labels = index_labels(summary_seq_index(session=obj.summary.session))
        return diff_html(obj.before_state, obj.after_state, labels)

    @admin.display(description=gettext_lazy("verifier report"))
    def report(self, obj: SummaryRevision) -> SafeString:
        return verifier_report_html(obj.verifier_report or {})

    def get_urls(self) -> list[Any]:
        own = [
            path(
                "diff/",
                self.admin_site.admin_view(self.diff_view),
                name="summaries_summaryrevision_diff",
            ),
            path(
                "<int:revision_id>/rollback/",
                self.admin_site.admin_view(self.rollback_view),
                name="summaries_summaryrevision_rollback",
            ),
        ]
        return own + super().get_urls()

    def diff_view(self, request: HttpRequest) -> HttpResponse:
        """Any two revisions of one summary: ?a=ID&b=ID (b defaults to a's predecessor)."""
        a = self.scoped_object(request, request.GET.get("a"))
        b_id = request.GET.get("b")
        if b_id:
            b = self.scoped_object(request, b_id, summary=a.summary)
            older, newer = sorted([a, b], key=lambda r: r.version)
            before, after = older.after_state, newer.after_state
        else:
            # The state before `a` is what its predecessor left (none before the first).
            newer, before, after = a, a.before_state, a.after_state
            older = a.summary.revisions.filter(version__lt=a.version).order_by("-version").first()
        revisions = a.summary.revisions.order_by("-version")
        return render(
            request,
            "admin/summaries/summaryrevision/diff.html",
            {
                **self.admin_site.each_context(request),
                "title": gettext("Diff of %(summary)s") % {"summary": a.summary},
                "older": older,
                "newer": newer,
                "diff": diff_html(before, after),
                "revisions": revisions,
                "a": a,
            },
        )

    def rollback_view(self, request: HttpRequest, revision_id: int) -> HttpResponse:
        revision = self.scoped_object(request, revision_id)
        if request.method != "POST":
            return HttpResponseRedirect(
                reverse("admin:summaries_summaryrevision_change", args=[revision.pk])
            )
        if not self.has_view_permission(request, revision) or not request.user.has_perm(
            "summaries.change_rollingsummary"
        ):
            return HttpResponse(status=403)
        if summary_rollback(revision=revision):
            self.log_change(
                request,
                revision.summary,
                gettext("rolled back to version %(version)s") % {"version": revision.version},
            )
            messages.success(
                request,
                gettext("Rolled back to version %(version)s (recorded as a new revision).")
                % {"version": revision.version},
            )
        else:
            messages.error(
                request, gettext("The summary changed meanwhile; nothing was rolled back.")
            )
        return HttpResponseRedirect(
            reverse("admin:summaries_rollingsummary_change", args=[revision.summary_id])
        )
