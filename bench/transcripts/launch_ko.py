"""Korean transcript: the CEO of 단골랩 and Avery, the chief of staff, in the master
channel, over ten weeks of preparing the launch of 단골노트 (a regulars-and-stamps app for
neighbourhood cafés). Avery plans, answers, and hands work to Mara, Theo and Iris."""

from datetime import date

from bench.transcripts.common import Spec, Template
from bench.transcripts.launch_ko_data import (
    CHECKLIST,
    CLOSING,
    FACTS,
    FAQ,
    LAUNCH_WEEK,
    PLANTED,
    QUICK_KO,
)
from bench.transcripts.launch_ko_running import (
    _ab_test,
    _assign,
    _competitor,
    _interviews,
    _metrics,
    _outreach,
    _seminar,
    _spend,
)
from bench.transcripts.launch_ko_writing import (
    _ads,
    _blog,
    _case_study,
    _instagram,
    _landing,
    _onboarding,
    _press_review,
    _support,
)
from bench.transcripts.templates import checklist, faq, launch_week, quick

TEMPLATES: list[Template] = [
    _instagram,
    _onboarding,
    _metrics,
    _competitor,
    _seminar,
    _landing,
    _interviews,
    _ads,
    _blog,
    _assign,
    faq(FAQ, CLOSING),
    _case_study,
    checklist(CHECKLIST, CLOSING),
    _ab_test,
    _outreach,
    _spend,
    _support,
    _press_review,
    launch_week(LAUNCH_WEEK, CLOSING),
    quick(QUICK_KO),
]

SPEC = Spec(
    name="launch_ko",
    language="ko",
    channel_kind="master",
    employee="Avery",
    description="마스터 채널(비서실장 Avery): 동네 카페용 단골 관리 앱 단골노트의 출시 준비 10주.",
    seed=20241209,
    tz="Asia/Seoul",
    start=date(2024, 12, 9),
    workdays=48,
    planted=PLANTED,
    facts=FACTS,
    templates=TEMPLATES,
    # Christmas, New Year's Day, and 설날 with the substitute holiday of 2025.
    holidays=(
        date(2024, 12, 25),
        date(2025, 1, 1),
        date(2025, 1, 27),
        date(2025, 1, 28),
        date(2025, 1, 29),
        date(2025, 1, 30),
    ),
)
