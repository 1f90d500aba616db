"""What the Korean launch transcript (launch_ko.py) says, read from
data/launch_ko.yaml: its planted missions, the facts and the questions that probe them,
and the pools of words its templates draw from, under the names the templates import."""

from typing import Any

from bench.transcripts.common import load_words, planted_missions, spec_facts
from bench.transcripts.templates import Checklist, Closing, Faq, LaunchWeek

_D = load_words("launch_ko")

PLANTED = planted_missions(_D["PLANTED"])
FACTS = spec_facts(_D["FACTS"])
CLOSING = Closing(**_D["CLOSING"])
CHECKLIST = Checklist(**_D["CHECKLIST"])
FAQ = Faq(**_D["FAQ"])
LAUNCH_WEEK = LaunchWeek(**_D["LAUNCH_WEEK"])

AREAS: list[str] = _D["AREAS"]
CAFES: list[str] = _D["CAFES"]
OWNERS: list[str] = _D["OWNERS"]
COMPETITORS: list[str] = _D["COMPETITORS"]
FEATURES: list[str] = _D["FEATURES"]
TEAM: list[str] = _D["TEAM"]
WEEKDAYS: list[str] = _D["WEEKDAYS"]
THEMES: Any = _D["THEMES"]
ANGLES: list[str] = _D["ANGLES"]
RISKS: list[str] = _D["RISKS"]
NEXT_STEPS: list[str] = _D["NEXT_STEPS"]
OPEN_QUESTIONS: list[str] = _D["OPEN_QUESTIONS"]
ALTERNATIVES: list[str] = _D["ALTERNATIVES"]
CONTEXT_NOTES: list[str] = _D["CONTEXT_NOTES"]
ONBOARD_STEPS: Any = _D["ONBOARD_STEPS"]
QUOTES_KO: list[str] = _D["QUOTES_KO"]
METRIC_ACTIONS_KO: list[str] = _D["METRIC_ACTIONS_KO"]
COMPARE_ROWS_KO: Any = _D["COMPARE_ROWS_KO"]
SEMINAR_TOPICS: list[str] = _D["SEMINAR_TOPICS"]
SEGMENTS_KO: list[str] = _D["SEGMENTS_KO"]
SECTIONS_KO: Any = _D["SECTIONS_KO"]
HEADLINES_KO: list[str] = _D["HEADLINES_KO"]
INTERVIEW_NOTES_KO: Any = _D["INTERVIEW_NOTES_KO"]
THEME_TEXT_KO: Any = _D["THEME_TEXT_KO"]
AD_COPY_KO: list[str] = _D["AD_COPY_KO"]
BLOG_TITLES_KO: Any = _D["BLOG_TITLES_KO"]
ASSIGN_TOPICS: list[str] = _D["ASSIGN_TOPICS"]
TASKS_KO: Any = _D["TASKS_KO"]
FAQ_KO: Any = _D["FAQ_KO"]
CASE_QUOTES_KO: list[str] = _D["CASE_QUOTES_KO"]
STREAMS_KO: Any = _D["STREAMS_KO"]
AB_KO: Any = _D["AB_KO"]
ORGS_KO: list[str] = _D["ORGS_KO"]
OFFERS_KO: list[str] = _D["OFFERS_KO"]
SPEND_LINES_KO: list[str] = _D["SPEND_LINES_KO"]
SUPPORT_KO: Any = _D["SUPPORT_KO"]
WEEK_PLAN_KO: Any = _D["WEEK_PLAN_KO"]
QUICK_KO: Any = _D["QUICK_KO"]
