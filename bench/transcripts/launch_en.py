# ruff: noqa: E501
"""English transcript: the founder of Tidewell (booking, reminders and treatment notes for
physiotherapy clinics) and Mara, the marketing lead, in their 1:1 channel, over ten weeks
of launch planning."""

from datetime import date

from bench.transcripts.common import Spec, Template
from bench.transcripts.launch_en_data import (
    CHECKLIST,
    CLOSING,
    FACTS,
    FAQ,
    LAUNCH_WEEK,
    PLANTED,
    QUICK,
)
from bench.transcripts.launch_en_running import (
    _ab_test,
    _competitor,
    _interviews,
    _metrics,
    _outreach,
    _spend,
    _sync,
    _webinar_ops,
)
from bench.transcripts.launch_en_writing import (
    _ads,
    _blog,
    _case_study,
    _landing,
    _linkedin,
    _nurture_email,
    _press_review,
    _support_macros,
    _video,
)
from bench.transcripts.templates import checklist, faq, launch_week, quick

TEMPLATES: list[Template] = [
    _linkedin,
    _nurture_email,
    _metrics,
    _competitor,
    _webinar_ops,
    _landing,
    _interviews,
    _ads,
    _blog,
    _sync,
    faq(FAQ, CLOSING),
    _case_study,
    checklist(CHECKLIST, CLOSING),
    _ab_test,
    _outreach,
    _spend,
    _support_macros,
    _video,
    _press_review,
    launch_week(LAUNCH_WEEK, CLOSING),
    quick(QUICK),
]

SPEC = Spec(
    name="launch_en",
    language="en",
    channel_kind="dm",
    employee="Mara",
    description="1:1 channel with Mara (marketing lead): ten weeks of launch planning for Tidewell, clinic software for physiotherapy practices.",
    seed=20250203,
    tz="Europe/London",
    start=date(2025, 2, 3),
    workdays=48,
    planted=PLANTED,
    facts=FACTS,
    templates=TEMPLATES,
    holidays=(date(2025, 4, 18), date(2025, 4, 21)),  # Easter
)
