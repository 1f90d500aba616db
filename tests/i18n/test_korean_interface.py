"""The interface in Korean and English: the language menu, per-person language, the
catalogue's completeness, and pages with no English left in them when Korean is chosen."""

import gettext
import html
import json
import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import translation

from office.models import Office, Profile
from office.ui import chat_strings
from sessions.services import session_start_new
from tests.factories import add_finished_missions, dm_channel, make_office, make_user
from tests.i18n.catalogue import messages
from tests.i18n.visible import INTERFACE_ENGLISH

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[2]
PO = ROOT / "locale" / "ko" / "LC_MESSAGES" / "django.po"
MO = PO.with_suffix(".mo")

# ASCII words a Korean page may still show: names of settings and of the product's
# providers, the keys written on a keyboard, and English named in its own language in
# the language menu.
ALLOWED_ASCII = INTERFACE_ENGLISH


class _Visible(HTMLParser):
    """The text a person sees, and the attributes read aloud or shown (placeholder,
    aria-label, title, value of buttons), without scripts and styles."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self.skip += 1
        for name, value in attrs:
            if name in ("placeholder", "aria-label", "title", "alt") and value:
                self.parts.append(value)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self.skip -= 1

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self.parts.append(data)


def visible_text(page: str) -> str:
    parser = _Visible()
    parser.feed(page)
    return html.unescape(" ".join(parser.parts))


def office_data(office: Office) -> list[str]:
    """What the person typed or the office was made with: names, roles, channel names.
    Data stays as written; only the interface around it is translated."""
    data = [office.name, office.owner.get_username()]
    for employee in office.employees.all():
        data += [employee.name, employee.role, employee.persona]
    data += [c.name for c in office.channels.all()]
    return sorted(data, key=len, reverse=True)


def english_left(page: str, office: Office | None) -> list[str]:
    text = visible_text(page)
    for value in office_data(office) if office else []:
        text = text.replace(value, " ")
    words = re.findall(r"[A-Za-z][A-Za-z_']+", text)
    return sorted({w for w in words if w not in ALLOWED_ASCII})


def _korean_user(username: str = "minji") -> tuple[User, Office, Client]:
    user = make_user(username)
    office = make_office(user, name="민지의 오피스")
    client = Client()
    client.force_login(user)
    response = client.post("/language/", {"language": "ko"})
    assert response.status_code == 302
    return user, office, client


# --- the language menu -----------------------------------------------------------------


def test_the_language_menu_offers_korean_and_english_and_saving_switches_the_page() -> None:
    user = make_user("jisoo")
    office = make_office(user)
    client = Client()
    client.force_login(user)
    page = client.get("/").content.decode()
    assert '<html lang="en">' in page
    options = re.findall(r'<option value="(\w+)" lang="\w+"\s*(selected)?>([^<]+)</option>', page)
    assert [(code, name) for code, _, name in options] == [("en", "English"), ("ko", "한국어")]
    assert [code for code, selected, _ in options if selected] == ["en"]

    saved = client.post("/language/", {"language": "ko"}, follow=True)
    korean = saved.content.decode()
    assert '<html lang="ko">' in korean
    assert "언어를 저장했어요." in korean
    assert "직원 채용" in korean and "Hire an employee" not in korean
    assert Profile.objects.get(user=user).language == "ko"
    office.refresh_from_db()
    assert office.language == "ko"  # the owner's notices follow

    back = client.post("/language/", {"language": "en"}, follow=True).content.decode()
    assert '<html lang="en">' in back and "Hire an employee" in back


def test_an_unknown_language_is_refused_with_a_message_and_nothing_changes() -> None:
    user = make_user()
    make_office(user)
    client = Client()
    client.force_login(user)
    page = client.post("/language/", {"language": "fr"}, follow=True).content.decode()
    assert "Unknown language." in page
    assert not Profile.objects.filter(user=user).exists()


def test_each_person_sees_their_own_language_whatever_the_browser_asks() -> None:
    _, _, korean = _korean_user()
    english_user = make_user("sam")
    make_office(english_user)
    english = Client(HTTP_ACCEPT_LANGUAGE="ko")
    english.force_login(english_user)
    assert '<html lang="ko">' in korean.get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    # Sam chose nothing: their office's language (English) wins over the browser's Korean.
    assert '<html lang="en">' in english.get("/").content.decode()


def test_without_a_choice_of_their_own_a_person_gets_their_offices_language() -> None:
    user = make_user()
    office = make_office(user)
    Office.objects.filter(pk=office.pk).update(language="ko")
    client = Client()
    client.force_login(user)
    assert '<html lang="ko">' in client.get("/").content.decode()


def test_the_login_page_follows_the_browser_and_the_saved_choice() -> None:
    assert (
        '<html lang="ko">'
        in Client(HTTP_ACCEPT_LANGUAGE="ko").get("/accounts/login/").content.decode()
    )
    page = Client(HTTP_ACCEPT_LANGUAGE="en").get("/accounts/login/").content.decode()
    assert '<html lang="en">' in page and "Log in" in page


# --- the catalogue ---------------------------------------------------------------------


def test_every_message_of_the_korean_catalogue_is_translated() -> None:
    entries = messages(PO)
    assert len(entries) > 150
    untranslated = [e.key for e in entries if not e.translated]
    assert not untranslated, f"msgids without a Korean msgstr (or fuzzy): {untranslated}"
    # Placeholders survive translation: a missing one would raise or show a raw brace.
    for entry in entries:
        for pattern in (r"%\(\w+\)s", r"\{\w+\}"):
            assert sorted(re.findall(pattern, entry.msgid)) == sorted(
                re.findall(pattern, entry.msgstr)
            ), entry.key


def test_the_compiled_catalogue_is_the_po_file_compiled() -> None:
    msgfmt = shutil.which("msgfmt")
    if msgfmt is None:
        if os.environ.get("CI"):
            pytest.fail("CI installs gettext (.ci/run); msgfmt is missing")
        pytest.skip("gettext's msgfmt is not installed (apt-get install gettext)")
    built = Path(str(PO) + ".test.mo")
    try:
        done = subprocess.run(
            [msgfmt, "--check", "-o", str(built), str(PO)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        with built.open("rb") as fresh, MO.open("rb") as committed:
            fresh_catalog = gettext.GNUTranslations(fresh)._catalog  # type: ignore[attr-defined]
            committed_catalog = gettext.GNUTranslations(committed)._catalog  # type: ignore[attr-defined]
        stale = {k for k in fresh_catalog if committed_catalog.get(k) != fresh_catalog[k]}
        assert not stale, f"django.mo is stale; run compilemessages: {sorted(stale)[:10]}"
    finally:
        built.unlink(missing_ok=True)


def test_every_word_the_chat_script_shows_has_a_korean_translation() -> None:
    with translation.override("en"):
        english = chat_strings()
    with translation.override("ko"):
        korean = chat_strings()

    def flat(value: Any, prefix: str = "") -> dict[str, str]:
        if isinstance(value, dict):
            out: dict[str, str] = {}
            for key, inner in value.items():
                out.update(flat(inner, f"{prefix}{key}."))
            return out
        return {prefix.rstrip("."): str(value)}

    en, ko = flat(english), flat(korean)
    assert en.keys() == ko.keys()
    same = [key for key in en if en[key] == ko[key]]
    assert not same, f"shown in English on a Korean page: {same}"
    assert all(re.search("[가-힣]", text) for text in ko.values()), ko


# --- whole pages -----------------------------------------------------------------------


def _pages(client: Client, office: Office) -> dict[str, str]:
    pages = {}
    for channel in office.channels.all():
        pages[f"chat {channel.kind} {channel.name}"] = client.get(f"/c/{channel.pk}/")
    theo = office.employees.get(name="Theo")
    pages["office"] = client.get("/")
    pages["employee"] = client.get(f"/employees/{theo.pk}/")
    pages["retire?"] = client.post(f"/employees/{theo.pk}/", {"action": "retire"})
    pages["hire refused"] = client.post(
        "/employees/hire/", {"name": "two words", "role": "", "persona": ""}
    )
    pages["missing"] = client.get("/no/such/page/")
    out = {}
    for name, response in pages.items():
        assert response.status_code in (200, 400, 404), (name, response.status_code)
        out[name] = response.content.decode()
    return out


def test_with_korean_chosen_no_page_shows_english_interface_text() -> None:
    _, office, client = _korean_user()
    pages = _pages(client, office)
    anonymous = Client(HTTP_ACCEPT_LANGUAGE="ko")
    pages["login"] = anonymous.get("/accounts/login/").content.decode()
    pages["signup"] = anonymous.get("/signup/").content.decode()
    leftovers = {}
    for name, page in pages.items():
        assert '<html lang="ko">' in page, name
        left = english_left(page, office)
        if left:
            leftovers[name] = left
    assert not leftovers, f"English words on Korean pages: {leftovers}"
    # The chat script's words come translated in its JSON element.
    chat = next(page for name, page in pages.items() if name.startswith("chat dm"))
    found = re.search(r'<script id="ui" type="application/json">(.*?)</script>', chat, re.S)
    assert found
    assert json.loads(found.group(1))["retry"] == "다시 시도"


def test_in_english_the_pages_hold_no_korean_but_the_name_of_the_language() -> None:
    user = make_user()
    office = make_office(user)
    client = Client()
    client.force_login(user)
    for name, page in _pages(client, office).items():
        assert '<html lang="en">' in page, name
        text = visible_text(page).replace("한국어", "")
        assert not re.search("[가-힣]", text), (name, re.findall("[가-힣]+", text))


def test_the_admins_own_pages_are_korean_too() -> None:
    admin = User.objects.create_superuser("root", password="pw-for-tests-1")
    office = make_office(admin, name="민지의 오피스")
    channel = dm_channel(office)
    add_finished_missions(channel.sessions.get(), 2)
    client = Client()
    client.force_login(admin)
    client.post("/language/", {"language": "ko"})
    cost = client.get("/admin/office/office/cost/").content.decode()
    context = client.get(f"/admin/office/channel/{channel.pk}/context/").content.decode()
    assert "프롬프트 글자 수" in cost
    assert "다음 지시" in context and "미리 보기" in context
    for page in (cost, context):
        assert '<html lang="ko"' in page
        for english in ("Next instruction", "Preview", "prompt chars", "full-history chars"):
            assert english not in page


def test_a_new_sessions_page_in_korean_says_the_summary_was_carried_over() -> None:
    _, office, client = _korean_user("hana")
    channel = dm_channel(office, "Mara")
    add_finished_missions(channel.sessions.get(), 2)
    session_start_new(channel=channel)
    page = client.get(f"/c/{channel.pk}/").content.decode()
    assert "세션 1의 요약을 이어받았어요." in page
    assert not english_left(page, office)
