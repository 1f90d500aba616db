"""What the English launch transcript (launch_en.py) says, read from
data/launch_en.yaml: its planted missions, the facts and the questions that probe them,
and the pools of words its templates draw from, under the names the templates import."""

from typing import Any

from bench.transcripts.common import load_words, planted_missions, spec_facts
from bench.transcripts.templates import Checklist, Closing, Faq, LaunchWeek

_D = load_words("launch_en")

PLANTED = planted_missions(_D["PLANTED"])
FACTS = spec_facts(_D["FACTS"])
CLOSING = Closing(**_D["CLOSING"])
CHECKLIST = Checklist(**_D["CHECKLIST"])
FAQ = Faq(**_D["FAQ"])
LAUNCH_WEEK = LaunchWeek(**_D["LAUNCH_WEEK"])

CITIES: list[str] = _D["CITIES"]
CLINICS: list[str] = _D["CLINICS"]
OWNERS: list[str] = _D["OWNERS"]
COMPETITORS: list[str] = _D["COMPETITORS"]
FEATURES: list[str] = _D["FEATURES"]
THEMES: Any = _D["THEMES"]
ANGLES: list[str] = _D["ANGLES"]
WEEKDAYS: list[str] = _D["WEEKDAYS"]
SIGNOFFS: list[str] = _D["SIGNOFFS"]
RISKS: list[str] = _D["RISKS"]
NEXT_STEPS: list[str] = _D["NEXT_STEPS"]
OPEN_QUESTIONS: list[str] = _D["OPEN_QUESTIONS"]
ALTERNATIVES: list[str] = _D["ALTERNATIVES"]
EMAIL_STEPS: Any = _D["EMAIL_STEPS"]
EMAIL_QUOTES: list[str] = _D["EMAIL_QUOTES"]
METRIC_ACTIONS: list[str] = _D["METRIC_ACTIONS"]
COMPARE_ROWS: Any = _D["COMPARE_ROWS"]
WEBINAR_TOPICS: list[str] = _D["WEBINAR_TOPICS"]
SEGMENTS: list[str] = _D["SEGMENTS"]
SECTIONS: Any = _D["SECTIONS"]
HEADLINES: list[str] = _D["HEADLINES"]
INTERVIEW_NOTES: Any = _D["INTERVIEW_NOTES"]
THEME_TEXT: Any = _D["THEME_TEXT"]
AD_COPY: list[str] = _D["AD_COPY"]
BLOG_TITLES: Any = _D["BLOG_TITLES"]
SYNC_TOPICS: list[str] = _D["SYNC_TOPICS"]
SYNC_DECISIONS: list[str] = _D["SYNC_DECISIONS"]
FAQ_POOL: Any = _D["FAQ_POOL"]
CASE_QUOTES: list[str] = _D["CASE_QUOTES"]
STREAMS: Any = _D["STREAMS"]
AB_ELEMENTS: Any = _D["AB_ELEMENTS"]
ORGS: list[str] = _D["ORGS"]
OFFERS: list[str] = _D["OFFERS"]
SPEND_LINES: list[str] = _D["SPEND_LINES"]
SUPPORT_CASES: Any = _D["SUPPORT_CASES"]
VIDEO_BEATS: list[str] = _D["VIDEO_BEATS"]
WEEK_PLAN: Any = _D["WEEK_PLAN"]
QUICK: Any = _D["QUICK"]
