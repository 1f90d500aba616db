"""Files given with an instruction (docs/design.md §4a): checked by their content, kept
with the mission, their text extracted in the background, pruned in the mission's own
prompt to what it asks, recalled later like any passage, and images given to the models
that take them. In Korean and English; through the real OpenAI SDK to the local fake
server, reading the prompts it was actually sent."""

import io
import json
from typing import Any

import pytest
from django.test import Client, override_settings

from missions.attachments import AttachmentRejected, attachment_sniff, attachment_upload
from missions.models import Attachment, AttachmentKind, Mission
from tests.factories import dm_channel, make_office, make_user
from tests.fake_openai import FAKE_MODEL, FakeOpenAI

pytestmark = pytest.mark.django_db(transaction=True)

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + b"\x00" * 40


def pdf(lines: list[str]) -> bytes:
    """A one-page PDF whose text layer holds `lines` (ASCII), with a correct cross-reference
    table: what a word processor's "Save as PDF" gives, reduced."""
    shown = " ".join(f"({line}) Tj 0 -16 Td" for line in lines)
    content = f"BT /F1 12 Tf 72 720 Td {shown} ET"
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        "/Resources << /Font << /F1 5 0 R >> >> >>",
        f"<< /Length {len(content)} >>\nstream\n{content}\nendstream",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = b"%PDF-1.4\n"
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets)
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n"
    ).encode()
    return out


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _upload(client: Client, channel_id: int, name: str, data: bytes) -> Any:
    upload = io.BytesIO(data)
    upload.name = name
    return client.post(f"/api/channels/{channel_id}/attachments", {"file": upload})


def _send(client: Client, channel_id: int, text: str, ids: list[int]) -> Any:
    return client.post(
        f"/api/channels/{channel_id}/instructions",
        {"text": text, "attachments": ids},
        content_type="application/json",
    )


def _prompt(request: Any) -> str:
    return "\n".join(
        m["content"]
        if isinstance(m["content"], str)
        else json.dumps(m["content"], ensure_ascii=False)
        for m in request.messages
    )


# --- what a file is -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "data", "kind"),
    [
        ("메모.txt", "배송비는 3,500원입니다.\n".encode(), AttachmentKind.TEXT),
        ("notes.md", b"# Launch\n- date: March 14\n", AttachmentKind.MARKDOWN),
        # Korean spreadsheets save CSV in CP949.
        ("단가표.csv", "품목,단가\n흑임자 라떼,6800\n".encode("cp949"), AttachmentKind.CSV),
        ("export", b"plain words, no extension", AttachmentKind.TEXT),
        ("contract.pdf", pdf(["Term: 12 months"]), AttachmentKind.PDF),
        ("photo.png", PNG, AttachmentKind.IMAGE),
        ("사진.jpg", b"\xff\xd8\xff\xe0" + b"\x00" * 20, AttachmentKind.IMAGE),
    ],
)
def test_a_file_is_taken_for_what_its_content_is(name: str, data: bytes, kind: str) -> None:
    assert attachment_sniff(data, name).kind == kind


@pytest.mark.parametrize(
    ("name", "data", "code"),
    [
        # The name promises what the content is not, either way.
        ("notes.txt", PNG, "file_type_mismatch"),
        ("photo.png", b"just text", "file_type_mismatch"),
        ("scan.pdf", PNG, "file_type_mismatch"),
        ("이미지.png", pdf(["x"]), "file_type_mismatch"),
        # A page or a script is not a document to read here, whatever it holds.
        ("page.html", b"<script>alert(1)</script>", "unsupported_file"),
        ("logo.svg", b"<svg onload=alert(1)>", "unsupported_file"),
        # Neither text nor a kind taken.
        ("data.bin", bytes(range(256)), "unsupported_file"),
        ("archive.zip", b"PK\x03\x04" + b"\x00" * 30, "unsupported_file"),
    ],
)
def test_a_file_whose_content_is_not_what_is_taken_is_refused_with_a_reason(
    name: str, data: bytes, code: str
) -> None:
    with pytest.raises(AttachmentRejected) as refused:
        attachment_sniff(data, name)
    assert refused.value.code == code
    assert name in refused.value.message or name.rsplit(".", 1)[-1] in refused.value.message


# --- upload --------------------------------------------------------------------------


def test_an_upload_is_kept_as_sent_and_its_text_extracted_in_the_background() -> None:
    user = make_user()
    channel = dm_channel(make_office(user))
    data = "품목,단가\n흑임자 라떼,6800\n".encode("cp949")
    response = _upload(_client(user), channel.pk, "단가표.csv", data)
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["name"], body["kind"], body["size"]) == ("단가표.csv", "csv", len(data))
    kept = Attachment.objects.get(pk=body["id"])
    assert bytes(kept.data) == data and kept.mission_id is None
    # The background lane (inline in tests) read it, decoded.
    assert kept.extracted_at is not None and "흑임자 라떼,6800" in kept.text
    download = _client(user).get(f"/api/attachments/{kept.pk}")
    assert download.status_code == 200 and download.content == data
    assert download["Content-Disposition"].startswith("attachment;")
    assert download["X-Content-Type-Options"] == "nosniff"


def test_a_pdf_gives_its_text_layer_and_a_pdf_without_one_says_so() -> None:
    user = make_user()
    channel = dm_channel(make_office(user))
    good = attachment_upload(
        channel=channel,
        user_id=user.pk,
        name="quote.pdf",
        data=pdf(["Quote from Bright Studio", "Total: 4,200 USD", "Valid until June 30"]),
    )
    good.refresh_from_db()
    assert "Total: 4,200 USD" in good.text and good.extract_error == ""
    blank = attachment_upload(channel=channel, user_id=user.pk, name="scan.pdf", data=pdf([]))
    blank.refresh_from_db()
    assert blank.text == "" and "no text layer" in blank.extract_error
    broken = attachment_upload(
        channel=channel, user_id=user.pk, name="broken.pdf", data=b"%PDF-1.7\n" + b"\x00" * 64
    )
    broken.refresh_from_db()
    assert broken.text == "" and broken.extract_error


@override_settings(ATTACHMENT_MAX_BYTES=64 * 1024)
def test_a_file_over_the_cap_gets_413_and_nothing_is_kept() -> None:
    user = make_user()
    channel = dm_channel(make_office(user))
    response = _upload(_client(user), channel.pk, "big.txt", b"a" * (64 * 1024 + 1))
    assert response.status_code == 413 and response.json()["code"] == "file_too_large"
    assert not Attachment.objects.exists()


def test_an_upload_to_a_channel_of_another_office_answers_like_a_missing_one() -> None:
    owner, stranger = make_user(), make_user()
    channel = dm_channel(make_office(owner))
    response = _upload(_client(stranger), channel.pk, "a.txt", b"hello")
    assert response.status_code == 404
    mine = attachment_upload(channel=channel, user_id=owner.pk, name="a.txt", data=b"hello")
    assert _client(stranger).get(f"/api/attachments/{mine.pk}").status_code == 404
    assert Client().get(f"/api/attachments/{mine.pk}").status_code == 401
    assert not Attachment.objects.exclude(pk=mine.pk).exists()


def test_an_upload_not_sent_can_be_removed_and_one_sent_cannot(model: FakeOpenAI) -> None:
    user = make_user()
    channel = dm_channel(make_office(user))
    client = _client(user)
    first = _upload(client, channel.pk, "a.txt", b"one").json()["id"]
    second = _upload(client, channel.pk, "b.txt", b"two").json()["id"]
    assert client.delete(f"/api/attachments/{first}").status_code == 204
    assert _send(client, channel.pk, "Read b", [second]).status_code == 202
    assert client.delete(f"/api/attachments/{second}").status_code == 409
    assert list(Attachment.objects.values_list("pk", flat=True)) == [second]


# --- with an instruction --------------------------------------------------------------


def test_the_instruction_takes_its_files_and_its_message_names_them(model: FakeOpenAI) -> None:
    user = make_user()
    channel = dm_channel(make_office(user))
    client = _client(user)
    ids = [
        _upload(client, channel.pk, "회의록.md", "# 회의\n출시일은 3월 14일".encode()).json()["id"],
        _upload(client, channel.pk, "photo.png", PNG).json()["id"],
    ]
    sent = _send(client, channel.pk, "회의록 정리해 주세요", ids)
    assert sent.status_code == 202, sent.content
    mission = Mission.objects.get(pk=sent.json()["mission"]["id"])
    assert mission.attachment_count == 2
    assert sorted(mission.attachments.values_list("pk", flat=True)) == sorted(ids)
    files = sent.json()["message"]["payload"]["attachments"]
    assert [(f["name"], f["kind"]) for f in files] == [
        ("회의록.md", "markdown"),
        ("photo.png", "image"),
    ]
    # The model read the file's text in the mission's own prompt.
    [request] = [r for r in model.requests if "회의록 정리해 주세요" in _prompt(r)]
    assert "출시일은 3월 14일" in _prompt(request)


@pytest.mark.parametrize("whose", ["another person", "another channel", "sent already"])
def test_files_that_are_not_the_persons_to_give_refuse_the_instruction_and_save_nothing(
    model: FakeOpenAI, whose: str
) -> None:
    user = make_user()
    office = make_office(user)
    channel = dm_channel(office)
    client = _client(user)
    if whose == "another person":
        other = make_user()
        file = attachment_upload(channel=channel, user_id=other.pk, name="x.txt", data=b"x")
    elif whose == "another channel":
        file = attachment_upload(
            channel=dm_channel(office, "Iris"), user_id=user.pk, name="x.txt", data=b"x"
        )
    else:
        file = attachment_upload(channel=channel, user_id=user.pk, name="x.txt", data=b"x")
        assert _send(client, channel.pk, "first", [file.pk]).status_code == 202
    before = Mission.objects.count()
    refused = _send(client, channel.pk, "Use this file", [file.pk])
    assert refused.status_code == 400 and refused.json()["code"] == "bad_attachment"
    assert Mission.objects.count() == before


@override_settings(ATTACHMENTS_PER_MISSION=2)
def test_more_files_than_an_instruction_takes_are_refused(model: FakeOpenAI) -> None:
    user = make_user()
    channel = dm_channel(make_office(user))
    client = _client(user)
    ids = [_upload(client, channel.pk, f"{n}.txt", b"x").json()["id"] for n in range(3)]
    refused = _send(client, channel.pk, "Read them", ids)
    assert refused.status_code == 400 and refused.json()["code"] == "too_many_files"
    assert not Mission.objects.exists()
    assert not Attachment.objects.filter(mission__isnull=False).exists()


# --- what the model reads --------------------------------------------------------------

LANGS = {
    "ko": {
        "header": "품목코드,품목,원두,용량,도매가,소매가",
        "row": lambda n: f"SKU-{n:05d},블렌드 {n}호,콜롬비아,200g,{9000 + n}원,{12000 + n}원",
        "planted": "SKU-07781,흑임자 라떼 베이스,국산 흑임자,1kg,31,500원,44,000원",
        "ask": "흑임자 라떼 베이스 도매가가 얼마였죠?",
        "later": "아까 단가표에서 흑임자 라떼 베이스 도매가 다시 알려 줘요",
    },
    "en": {
        "header": "sku,product,origin,size,wholesale,retail",
        "row": lambda n: f"SKU-{n:05d},House blend {n},Colombia,200g,{9 + n % 7}.50 USD,14.00 USD",
        "planted": "SKU-07781,Oat milk latte base,Sweden,1kg,31.50 USD,44.00 USD",
        "ask": "What is the wholesale price of the oat milk latte base?",
        "later": "From that price list earlier: the oat milk latte base, wholesale?",
    },
}


def _price_list(lang: str) -> str:
    words = LANGS[lang]
    rows = [words["row"](n) for n in range(1, 2001)]  # type: ignore[operator]
    rows.insert(1400, str(words["planted"]))
    return "\n".join([str(words["header"]), *rows]) + "\n"


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_a_large_file_is_pruned_to_what_the_instruction_asks_in_its_own_prompt(
    model: FakeOpenAI, lang: str
) -> None:
    user = make_user()
    channel = dm_channel(make_office(user))
    client = _client(user)
    table = _price_list(lang)
    assert len(table) > 80_000
    file = _upload(client, channel.pk, "prices.csv", table.encode()).json()["id"]
    assert _send(client, channel.pk, str(LANGS[lang]["ask"]), [file]).status_code == 202
    [request] = [r for r in model.requests if str(LANGS[lang]["ask"]) in _prompt(r)]
    files = next(m["content"] for m in request.messages if "prices.csv" in m["content"])
    # The row asked about and the header that says what its columns are; within the cap.
    assert str(LANGS[lang]["planted"]) in files and str(LANGS[lang]["header"]) in files
    assert len(files) <= 8_000
    # The current mission is still last, and the whole prompt within the envelope.
    assert str(LANGS[lang]["ask"]) in request.messages[-1]["content"]
    assert sum(len(m["content"]) for m in request.messages) <= 32_000
    # A plain cut of the same size (the file's beginning) would not have held it.
    assert str(LANGS[lang]["planted"]) not in table[: len(files)]


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_a_file_is_recalled_by_a_later_mission_that_asks_about_it(
    model: FakeOpenAI, lang: str
) -> None:
    user = make_user()
    channel = dm_channel(make_office(user))
    client = _client(user)
    file = _upload(client, channel.pk, "prices.csv", _price_list(lang).encode()).json()["id"]
    opener = "단가표 올려요, 보관해 주세요" if lang == "ko" else "Here is the price list, keep it"
    assert _send(client, channel.pk, opener, [file]).status_code == 202
    for n in range(3):
        filler = f"다른 이야기 {n}: 포장 검토" if lang == "ko" else f"Other topic {n}: packaging"
        assert _send(client, channel.pk, filler, []).status_code == 202
    later = str(LANGS[lang]["later"])
    assert _send(client, channel.pk, later, []).status_code == 202
    [request] = [r for r in model.requests if later in _prompt(r)]
    # Not in the mission's files (it has none): recalled from the earlier mission's file.
    assert str(LANGS[lang]["planted"]) in _prompt(request)
    assert "(from the attached file «prices.csv»)" in _prompt(request)


def _image_request(model: FakeOpenAI, text: str) -> Any:
    return next(r for r in model.requests if text in _prompt(r))


@pytest.mark.parametrize("takes_images", [True, False])
def test_an_image_is_given_to_a_model_that_takes_images_and_named_to_one_that_does_not(
    model: FakeOpenAI, takes_images: bool
) -> None:
    user = make_user()
    channel = dm_channel(make_office(user))
    client = _client(user)
    with override_settings(IMAGE_MODELS=[FAKE_MODEL] if takes_images else ["gpt-4o*"]):
        file = _upload(client, channel.pk, "shelf.png", PNG).json()["id"]
        text = "이 진열대 사진 어때요?"
        assert _send(client, channel.pk, text, [file]).status_code == 202
    request = _image_request(model, text)
    last = request.messages[-1]["content"]
    if takes_images:
        assert isinstance(last, list)
        [image] = [part for part in last if part["type"] == "image_url"]
        assert image["image_url"]["url"].startswith("data:image/png;base64,")
        assert text in next(part["text"] for part in last if part["type"] == "text")
    else:
        assert isinstance(last, str) and text in last
        assert "you are not shown images" in _prompt(request)
        assert "base64" not in _prompt(request)


def test_a_files_long_text_is_cut_into_lines_without_being_remembered() -> None:
    from context.excerpts import _units, units

    _units.cache_clear()
    text = "SKU-00001,블렌드,9000원\n" * 8_000  # a file's text, ≈ 180,000 chars
    spans = units(text)
    assert len(spans) == 8_000 and spans[-1].end == len(text)
    # The memo (4,096 texts) holds mission-sized texts only.
    assert _units.cache_info().currsize == 0
    units(text[:2_000])
    assert _units.cache_info().currsize == 1


NOTES = "\n".join(
    f"{n}. Item {n}: store operations review. The owner shared last week's progress and "
    f"will bring a detailed schedule to the next meeting. Nothing unusual."
    for n in range(700)
)
POP_UP = "Decision: the autumn pop-up store runs in Shoreditch for two weeks from October 11."


@pytest.mark.parametrize("meaning", ["use-multilingual-3", "off"])
def test_a_question_in_other_words_finds_its_passage_of_a_file_by_meaning(
    model: FakeOpenAI, meaning: str, settings: Any
) -> None:
    settings.MEANING_MODEL = meaning
    user = make_user()
    channel = dm_channel(make_office(user))
    client = _client(user)
    lines = NOTES.split("\n")
    text = "\n".join([*lines[:350], POP_UP, *lines[350:]])
    file = _upload(client, channel.pk, "minutes.txt", text.encode()).json()["id"]
    kept = Attachment.objects.get(pk=file)
    assert bool(kept.vectors) == (meaning != "off")
    # None of the decision's words: "temporary seasonal shop" for "pop-up store".
    question = "When do we open the temporary seasonal shop, and where?"
    assert _send(client, channel.pk, question, [file]).status_code == 202
    [request] = [r for r in model.requests if question in _prompt(r)]
    files = next(m["content"] for m in request.messages if "minutes.txt" in m["content"])
    assert (POP_UP in files) == (meaning != "off")
    assert len(files) <= 8_000
