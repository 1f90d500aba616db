"""Someone else's words inside a person's message, recognised by their shape rather than
by the phrases of one example: what the person forwards, pastes or reports teaches memory
nothing by itself (language.statements.own_words).

The shapes:
- a forward mark ("Fwd:", "FW:", "[전달]") or a word of pasting ("pasted", "copied",
  "붙여넣은");
- a header naming a message of someone else: a message noun with its source ("Message
  from the agency", "Slack from Mara", "the agency's reply", "Their reply", "대행사
  메시지", "회계팀 공지", "대행사에서 온 카톡") — a message noun alone ("Note:", "공지:") is
  the person's own label;
- another speaker's voice: a head ending in a verb of saying ("Jun says:", "The printer
  wrote back —", "김 부장님 왈:", "디자이너가 이렇게 말했어요 —") or a speaker label
  by title ("박 대표: …", "김 부장님: …");
- reported speech, a whole sentence in another's voice: Korean reported endings ("보내
  달래요", "한대요", "하라고 했어요") and English "<someone> says/said …";
- a block set apart: a short opening request that points at what follows ("What do you
  make of this?", "아래 내용 봐 줘:") and, after a blank line, a block of several lines or
  one that ends in a sign-off ("Best,\\nKim", "김철수 드림").

Patterns are plain alternations anchored on a short head, with no nested repetition:
their cost is linear in the text."""

import re

# Nouns naming a message, a note or a post.
_MESSAGE_NOUNS = (
    r"messages?|msgs?|notes?|e-?mails?|mails?|texts?|sms|memos?|repl(?:y|ies)|responses?|"
    r"answers?|comments?|feedback|letters?|dms?|slacks?|chats?|announcements?|notices?|"
    r"updates?|posts?|quotes?|statements?|words|voicemails?|tickets?|reviews?|request"
)
_KO_MESSAGE_NOUNS = (
    r"메시지|메세지|이메일|메일|문자|카톡|카카오톡|공지사항|공지|답변|답장|회신|의견|피드백|"
    r"편지|원문|내용|말씀|요청|문의|후기|리뷰|코멘트|댓글|안내문|공문"
)
_FORWARD_MARK = re.compile(
    r"^\W{0,3}(?:fwd?|fw|forwarded|전달)\W{0,3}(?::|\]|$)|\[(?:fwd?|fw|전달)\]"
    r"|\b(?:pasted|copied|copy-pasted)\b|붙여\s?넣|복사해\s?(?:온|둔|왔)",
    re.IGNORECASE,
)
# "Message from the agency", "Slack from Mara", "a note by the landlord".
_FROM_SOMEONE = re.compile(
    rf"\b(?:{_MESSAGE_NOUNS})\s+(?:from|by|of)\s+(?!me\b|myself\b)\S", re.IGNORECASE
)
# "The agency's reply", "Their reply", "his note" (never "my" or "our" own).
_WHOSE = re.compile(
    rf"(?:\b(?:their|his|her)|\w(?:'s|’s|s'|s’))\s+(?:\w+\s+)?(?:{_MESSAGE_NOUNS})\b",
    re.IGNORECASE,
)
_EN_SAYING = (
    r"says|said|wrote|writes|wrote back|replied|replies|answered|asked|asks|told (?:us|me)|"
    r"tells (?:us|me)|sent(?: us| me)?(?: this)?|posted|commented|added|mentioned|claims|"
    r"just sent|put it"
)
_OWN_SUBJECT = re.compile(r"^(?:i|we|you|i've|we've|i'm|we're)\b", re.IGNORECASE)
# A head that ends in another speaker's verb of saying: "Jun (the designer) says".
_EN_SPEAKER_HEAD = re.compile(rf"^\S.{{0,60}}?\s(?:{_EN_SAYING})(?:\s+(?:that|this|back))?$")
# A Korean message noun with a source before it: "대행사 메시지", "회계팀 공지", "고객 문의
# 원문입니다", "대행사에서 온 카톡", "거래처가 보낸 메일".
_KO_SOURCED_MESSAGE = re.compile(
    rf"(?:^|\s)(?!(?:제|내|저희|우리|나의|저의)(?:\s|$))[가-힣A-Za-z]{{1,12}}"
    rf"(?:(?:에서 온|에게서 온|한테서 온|(?:이|가|에서) 보낸|(?:이|가) 보내온|(?:이|가) 쓴)\s"
    rf"|의\s?|\s)(?:[가-힣]{{1,6}}\s)?(?:{_KO_MESSAGE_NOUNS})"
    rf"(?:\s?(?:{_KO_MESSAGE_NOUNS}))?(?:입니다|이에요|예요|이요|요)?\s*$"
)
_KO_SAYING_END = re.compile(
    r"(?:왈|曰|말씀하시길|말하길|말하기를|말씀이|그러는데|그러길|그러네요|이러네요|"
    r"(?:이렇게|라고|다고|같이)\s?(?:말했|말씀하셨|했|하셨|보냈|전했)\S*|"
    r"(?:이|가|에서)\s(?:보냈|보내왔|전해\s?왔|말했|물어봤)\S*|"
    rf"(?:{_KO_MESSAGE_NOUNS}|연락)(?:이|가)?\s?(?:왔|도착했|들어왔)\S*)\s*$"
)
# A person named by a title: "박 대표", "김 부장님", "이수진 팀장".
_KO_TITLED = re.compile(
    r"^[가-힣]{1,4}\s?(?:대표|사장|부장|차장|과장|팀장|실장|이사|상무|전무|본부장|매니저|"
    r"선생|교수|변호사|회계사|고객|선배)(?:님)?$"
)
_SPEAKER_UTTERANCE_WORDS = 2


def introduces_material(head: str, rest: str = "") -> bool:
    """Whether `head`, the part of a sentence before its colon, dash or line break,
    presents someone else's text (`rest`, what follows it)."""
    head = head.strip().strip("*_#>").rstrip(".!。 ").strip()
    if not head or len(head) > 80:
        return False
    if _FORWARD_MARK.search(head) or _FROM_SOMEONE.search(head) or _WHOSE.search(head):
        return True
    if _EN_SPEAKER_HEAD.match(head) and not _OWN_SUBJECT.match(head):
        return True
    if _KO_SOURCED_MESSAGE.search(head) or _KO_SAYING_END.search(head):
        return True
    # A bare English name before a colon is left alone: "Remember:", "Deadline:" and
    # "Dana:" look the same, and a person labels their own words that way too.
    return bool(_KO_TITLED.match(head)) and len(rest.split()) >= _SPEAKER_UTTERANCE_WORDS


# Korean reported speech: the sentence is what someone else said ("보내 달래요", "한대요",
# "하라고 했어요", "바꾸자고 하네요"). "-ㄹ래요" (할래요: I will) is the speaker's own.
_KO_REPORTED = re.compile(
    r"(?:달래요?|달래|달라고\s?\S+|(?:다|라|자|냐)고\s?(?:했|하셨|하더|하네|해요|합니다|하시|"
    r"그러|전해)\S*|[다라]더라\S*|답니다|랍니다|(?:한|했|있|없|된|는)대요?)[.!~\s]*$"
)
_EN_REPORTED = re.compile(
    rf"^(?:(?:[Tt]he|[Oo]ur|[Mm]y|[Tt]heir|[Hh]is|[Hh]er|[Aa]n?)\s[\w'’-]+(?:\s[\w'’()-]+){{0,2}}"
    rf"|[A-Z][a-z'’-]+(?:\s[A-Z][a-z'’-]+)?)\s(?:{_EN_SAYING})\s\S"
)
# Words that open a person's own request, never a speaker's name.
_OWN_OPENERS = frozenset(
    [
        *("please", "let", "can", "could", "would", "tell", "ask", "make", "send", "always"),
        *("never", "remember", "note", "also", "and", "but", "so", "then", "if", "when"),
        *("just", "maybe", "ok", "okay", "yes", "no", "thanks", "hi", "hello", "hey"),
    ]
)


def reported_speech(sentence: str) -> bool:
    """Whether a whole sentence gives someone else's words ("The agency says reports go
    out in French", "대행사가 보고서는 프랑스어로 보내 달래요")."""
    sentence = sentence.strip().lstrip("-*•·–— ")
    if _KO_REPORTED.search(sentence):
        return True
    first = sentence.split(maxsplit=1)[0].lower() if sentence else ""
    return bool(_EN_REPORTED.match(sentence)) and first not in _OWN_OPENERS


_PARAGRAPHS = re.compile(r"\n[ \t]*\n")
_POINTS_FORWARD = re.compile(
    r"\b(?:this|these|the following|below|here(?:'s| is| are)?|attached|as follows)\b"
    r"|아래|다음|이거|이것|이\s?(?:내용|글|메일|메시지|문자)|이렇게|[:：]\s*$|\?\s*$|？\s*$",
    re.IGNORECASE,
)
_SIGN_OFF = re.compile(
    r"^(?:best|regards|best regards|kind regards|thanks|thank you|cheers|sincerely|"
    r"warmly|yours)\b[^\n]{0,30}$|^(?:—|--)\s?\w{1,20}(?:\s\w{1,20})?$"
    r"|^[가-힣\s]{2,12}(?:드림|올림|배상)\.?$",
    re.IGNORECASE | re.MULTILINE,
)
_REQUEST_WORDS = 20


def before_set_apart_block(text: str) -> str:
    """The text before a block set apart from a short opening request that points at it:
    what follows is the material the request is about, not the person's words."""
    paragraphs = _PARAGRAPHS.split(text.strip(), maxsplit=1)
    if len(paragraphs) < 2:
        return text
    opening, block = paragraphs[0].strip(), paragraphs[1].strip()
    if "\n" in opening or len(opening.split()) > _REQUEST_WORDS:
        return text
    if not _POINTS_FORWARD.search(opening):
        return text
    lines = [line for line in block.splitlines() if line.strip()]
    if len(lines) >= 2 or _SIGN_OFF.search(block):
        return opening
    return text


# --- blocks set apart -------------------------------------------------------------------
#
# A message is read as lines and paragraphs (runs of lines between blank lines). Material
# is found by the shape of a block, not by what it says:
# - mail: a "From:" header or two headers; a greeting ("Hi Sam,", "안녕하세요, 커피상회
#   박민수입니다") and, further down, a sign-off ("Best,\nDana", "이지훈 드림");
# - clauses: numbered articles and sections ("제3조", "Section 2.1", "4.1", "①") or the
#   language of contracts ("shall", "갑은", "본 계약");
# - another speaker's lines: "Mira: …", "[10:02] Jisoo: …", "A: …" (a name that comes
#   back, three lines or more, or a time stamp: a label of the person's own, "Budget:
#   $18,500", comes once);
# - rows of a table, questions and answers of an FAQ, reviews with their stars;
# - a separator ("-----", "---- Original Message ----");
# - a block set apart from a short paragraph of the person's that attests to it: that
#   says it was pasted or received ("붙여요", "got this"), names whose it is ("the
#   studio's terms", "업체 조건", "their offer"), or asks about it ("이 조항 불리한 거
#   없어?", "Does this change our Friday delivery?").
# What is around it (the request before it, a last short paragraph after it) is the
# person's. Every line is read once, by patterns anchored at its start or bounded in
# length: linear in the text.

_HEADER_LINE = re.compile(
    r"^[ \t]{0,4}(?:from|to|cc|bcc|subject|date|sent|reply-to|보낸\s?사람|받는\s?사람|참조|"
    r"제목|보낸\s?날짜)[ \t]{0,4}:",
    re.IGNORECASE,
)
_FROM_HEADER = re.compile(r"^[ \t]{0,4}(?:from|보낸\s?사람)[ \t]{0,4}:", re.IGNORECASE)
_CLAUSE_LINE = re.compile(
    r"^[ \t]{0,4}(?:제\s?\d{1,3}\s?조|(?:article|section|clause|§)\s?\d{1,3}|"
    r"\d{1,2}\.\d{1,2}(?:\.\d{1,2})?\.?[ \t]|[①-⑳])",
    re.IGNORECASE,
)
_LEGAL = re.compile(
    r"\b(?:shall|hereinafter|hereby|herein|thereof|whereas|pursuant to)\b"
    r"|(?<![가-힣])[갑을](?:은|는|이|과|의|에게|측)(?![가-힣])|본\s?계약",
    re.IGNORECASE,
)
_SPEAKER_LINE = re.compile(
    r"^[ \t]{0,4}(?:[-*•][ \t]{0,2})?"
    r"(?P<stamp>[\[(]?\d{1,2}:\d{2}(?::\d{2})?(?:[ \t]?[apAP][mM])?[\])]?[ \t]{0,3})?"
    r"(?P<name>[A-Z][\w'’.-]{0,20}(?: [A-Z][\w'’.-]{0,20})?|[가-힣]{2,4}"
    r"(?: ?(?:님|씨|대표|팀장|매니저|실장|과장|대리|부장|사장|작가|디자이너))?)"
    r"[ \t]{0,2}[:：][ \t]*(?P<said>\S.*)$"
)
# Labels a person gives their own lines ("Budget: …", "참고: …"), not speakers.
_LABELS = frozenset(
    [
        *("note", "notes", "subject", "from", "to", "cc", "date", "re", "fwd", "todo", "budget"),
        *("deadline", "goal", "price", "status", "owner", "update", "summary", "decision", "ps"),
        *("reminder", "tip", "idea", "agenda", "location", "time", "venue", "question", "answer"),
        *("remember", "important", "fyi", "heads up", "next", "step", "result", "plan"),
        *("참고", "메모", "요약", "결정", "질문", "답변", "예산", "마감", "일정", "가격", "목표"),
        *("장소", "시간", "담당", "제목", "공지", "기억", "중요", "다음", "결과", "계획", "할일"),
    ]
)
_QA_LINE = re.compile(
    r"^[ \t]{0,4}(?P<qa>Q|A|Q\d{1,3}|A\d{1,3}|[Qq]uestion|[Aa]nswer|질문|답변|문|답)"
    r"[ \t]{0,2}[:.)．][ \t]*\S"
)
_REVIEW_LINE = re.compile(
    r"^[ \t]{0,4}(?:[-*•][ \t]{0,2})?(?:[★☆⭐✩✭🌟]|\d(?:\.\d)?[ \t]?/[ \t]?5\b|"
    r"[1-5][ \t]?점(?![가-힣])|\(\d/5\)|별점)"
)
_SEPARATOR_LINE = re.compile(
    r"^[ \t]{0,4}(?:-{3,}|={3,}|_{3,}|\*{3,}|—{2,})[^\n]{0,60}$"
    r"|(?:original message|forwarded message|begin forwarded|전달된 메시지|원본 메시지)",
    re.IGNORECASE,
)
_GREETING_LINE = re.compile(
    r"^[ \t]{0,4}(?:(?:hi|hello|hey|dear|greetings|good (?:morning|afternoon|evening))\b"
    r"|to whom it may concern|안녕하세요|안녕하십니까)",
    re.IGNORECASE,
)
# A greeting that introduces its writer: "안녕하세요, 커피상회 박민수입니다", "Hi, this is
# Dana from Bright Pixel".
_SELF_INTRO = re.compile(
    r"(?:팀|담당자?|대표|매니저|실장|과장|대리|주임|부장|팀장|이사|상회|상사|㈜|\(주\)|스튜디오|"
    r"로스터리|컴퍼니)\s?[가-힣]{0,4}\s?(?:입니다|이에요|예요|라고 합니다)[.!]?[ \t]*$"
    r"|\b(?:[Tt]his is|[Mm]y name is)\s[A-Z]"
)
_VALEDICTION_LINE = re.compile(
    r"^[ \t]{0,4}(?:best|regards|best regards|kind regards|warm regards|warmest regards|"
    r"many thanks|thanks|thank you|thanks again|cheers|sincerely|yours sincerely|yours truly|"
    r"warmly|yours|감사합니다|고맙습니다|감사드립니다)[ \t,.!~]{0,4}$",
    re.IGNORECASE,
)
_SIGNED_LINE = re.compile(
    r"^[ \t]{0,4}(?:[^\n]{1,30}[ \t]?(?:드림|올림|배상)[.!]?|(?:—|–|--)[ \t]?[A-Z가-힣][^\n]{0,30}"
    r"|(?:best|regards|thanks|cheers|sincerely|warmly),[ \t]+[A-Z][\w.'’-]{0,20}"
    r"(?: [A-Z][\w.'’-]{0,20})?)"
    r"[ \t]*$",
    re.IGNORECASE,
)
_NAME_LINE = re.compile(r"^[ \t]{0,4}[\w(][\w.&'’() -]{0,40}$")

_PASTE_VERB = re.compile(
    r"\b(?:paste[ds]?|copied|copy|forwarded|forwarding|fwd|got this|received|came in|"
    r"sent (?:me|us|over)|here(?:'s| is| are))\b"
    r"|붙여|붙입|붙임|복붙|옮겨|옮깁|가져왔|캡처|캡쳐|받았|왔어요|왔는데|왔습니다|왔네요|"
    r"온 거|전달",
    re.IGNORECASE,
)
_COUNTERPART = re.compile(
    r"\b(?:vendors?|suppliers?|clients?|customers?|agency|agencies|studios?|landlord|printers?|"
    r"roasters?|partners?|contractors?|lawyers?|accountants?|they|their|them|theirs)\b"
    r"|\b(?!(?:let|it|that|what|here|there|who|he|she|where|how)['’]s)\w+['’]s\s"
    r"|업체|거래처|고객|대행사|스튜디오|협력사|벤더|상대방|그쪽|변호사|세무사|건물주|집주인|인쇄소|"
    r"공급사|납품처|손님|단톡",
    re.IGNORECASE,
)
_MATERIAL_NOUN = re.compile(
    r"\b(?:quotes?|quotation|estimate|contract|lease|agreement|terms|conditions|proposal|offer|"
    r"faq|reviews?|minutes|transcript|thread|e-?mails?|mail|messages?|letter|notice|"
    r"announcement|policy|invoice|memo|notes)\b"
    r"|견적|계약|약관|조건|제안서|공지|안내문|리뷰|후기|회의록|미팅 메모|메일|메시지|카톡|문자|"
    r"답장|회신|대화|원문|조항",
    re.IGNORECASE,
)
_OWN_CLAIM = re.compile(
    r"\b(?:my|our)\s+(?:own\s+)?(?:notes?|rules?|list|memo|draft|plan|policy|terms)\b"
    r"|(?:(?<![가-힣])내|(?<![가-힣])제|우리|저희)\s?(?:메모|규칙|원칙|초안|계획|목록|방침)",
    re.IGNORECASE,
)
_POINTER = re.compile(
    r"\b(?:this|these|those|that|here|above|below|the following|attached|it)\b"
    r"|(?<![가-힣])위(?:의)?\s|(?<![가-힣])(?:이거|이것|이걸|아래)|(?<![가-힣])이\s[가-힣]",
    re.IGNORECASE,
)
_ASKS = re.compile(
    r"[?？][ \t]*$"
    r"|(?:줘|주세요|줄래|주실래요|봐요|볼래|어때|어떤지|까요|나요|없어|있어)[.!~?]*[ \t]*$"
    r"|^(?:please|pls|can you|could you|would you|what|how|does|do|is|are|anything|draft|reply|"
    r"tidy|check|review|translate|chart|tell)\b",
    re.IGNORECASE,
)
# The person taking the material for their own: a pointer to it and a verb of adopting
# ("이대로 하자", "그 조건으로 진행해요", "use their terms", "let's go with this").
_ADOPTS = re.compile(
    r"(?:(?<![가-힣])[이그](?:대로|걸로|것으로|거로|렇게)|(?<![가-힣])(?:이|그|위|해당)\s"
    r"(?:조건|견적|안|내용|방식|일정|계약|가격|제안|약관|조항)(?:으로|로|대로)?)"
    r"\s?(?:\S{0,6}\s)?(?:하자|해요|합시다|하죠|할게|진행|가자|갑시다|가요|갈게|결정|확정|수락|"
    r"받아들|동의|쓰자|써요|씁시다|적용|계약)"
    r"|\b(?:use|accept|take|go with|adopt|agree to|sign|approve|follow|apply)\s+"
    r"(?:their|these|those|this|that|the|its|his|her)\s+(?:\w+\s+)?(?:terms|offer|quote|"
    r"proposal|conditions|schedule|plan|pricing|prices|contract|rules|policy|one|version|deal)\b"
    r"|\blet'?s\s+(?:do|go with|use|accept|take|sign|follow)\s+(?:it|this|that|these|those|them)\b",
    re.IGNORECASE,
)
_NEGATED = re.compile(
    r"\b(?:don'?t|do not|not|never|won'?t|no)\b|말자|말고|않|(?<![가-힣])안\s", re.IGNORECASE
)
_SHORT_LINES = 2
_SHORT_CHARS = 200
_SPEAKER_WORDS = 2


def _lines(text: str) -> list[tuple[int, int]]:
    spans, start = [], 0
    for index, char in enumerate(text):
        if char == "\n":
            spans.append((start, index))
            start = index + 1
    spans.append((start, len(text)))
    return spans


def _speaker(line: str) -> tuple[str, bool] | None:
    """The speaker of a line of chat or notes, and whether it bears a time stamp."""
    match = _SPEAKER_LINE.match(line)
    if match is None or len(match.group("said").split()) < _SPEAKER_WORDS:
        return None
    name = match.group("name").lower()
    if name in _LABELS:
        return None
    return name, bool(match.group("stamp"))


def _signs_off(lines: list[str], index: int) -> int:
    """The last line of a sign-off at `index` ("Best,\\nDana", "이지훈 드림"), or -1."""
    line = lines[index]
    if _SIGNED_LINE.match(line):
        return index
    if _VALEDICTION_LINE.match(line) and index + 1 < len(lines):
        following = lines[index + 1]
        if following.strip() and _NAME_LINE.match(following) and len(following.split()) <= 4:
            return index + 1
    return -1


def _shaped(lines: list[str]) -> tuple[int, int] | None:
    """The lines (first, last) of a paragraph that have the shape of material, if any."""
    headers = [i for i, line in enumerate(lines) if _HEADER_LINE.match(line)]
    if len(headers) >= 2 or any(_FROM_HEADER.match(lines[i]) for i in headers):
        return headers[0], len(lines) - 1
    found: list[tuple[int, int]] = []
    clauses = [i for i, line in enumerate(lines) if _CLAUSE_LINE.match(line)]
    legal = [i for i, line in enumerate(lines) if _LEGAL.search(line)]
    if len(clauses) >= 2 or (clauses and legal and len(lines) >= 2) or len(legal) >= 2:
        first = min(clauses[:1] + legal[:1])
        found.append((first, len(lines) - 1))
    speakers = [(i, s) for i, line in enumerate(lines) if (s := _speaker(line))]
    names = [s[0] for _, s in speakers]
    if len(speakers) >= 2 and (
        len(set(names)) < len(names) or len(speakers) >= 3 or any(s[1] for _, s in speakers)
    ):
        found.append((speakers[0][0], len(lines) - 1))
    qa = [
        (i, m.group("qa")[:1].lower())
        for i, line in enumerate(lines)
        if (m := _QA_LINE.match(line))
    ]
    kinds = {k for _, k in qa}
    if len(qa) >= 2 and ({"q", "a"} <= kinds or {"질", "답"} <= kinds or {"문", "답"} <= kinds):
        found.append((qa[0][0], qa[-1][0]))
    rows = [i for i, line in enumerate(lines) if line.count("|") >= 2 or line.count("\t") >= 2]
    if len(rows) >= 2:
        found.append((rows[0], rows[-1]))
    reviews = [i for i, line in enumerate(lines) if _REVIEW_LINE.match(line)]
    if len(reviews) >= 2:
        found.append((reviews[0], reviews[-1]))
    greeting = next((i for i, line in enumerate(lines) if _GREETING_LINE.match(line)), -1)
    if greeting >= 0:
        end = next(
            (e for i in range(greeting + 1, len(lines)) if (e := _signs_off(lines, i)) >= 0), -1
        )
        if end >= 0:
            found.append((greeting, end))
        elif _SELF_INTRO.search(lines[greeting]) and greeting + 1 < len(lines):
            found.append((greeting, len(lines) - 1))
    if not found:
        return None
    return min(f for f, _ in found), max(last for _, last in found)


def _short(text: str) -> bool:
    return text.count("\n") < _SHORT_LINES and len(text) <= _SHORT_CHARS


def _attests(text: str) -> bool:
    """Whether a short paragraph of the person's says that what is beside it is someone
    else's, or what they ask about: pasted or received, whose it is, or a request that
    points at it."""
    text = text.strip()
    if not text or not _short(text) or _OWN_CLAIM.search(text):
        return False
    if _PASTE_VERB.search(text) or introduces_material(text):
        return True
    pointed, asks = bool(_POINTER.search(text)), bool(_ASKS.search(text))
    whose, what = bool(_COUNTERPART.search(text)), bool(_MATERIAL_NOUN.search(text))
    if whose and what:
        return True  # someone else's text named: "업체 조건입니다", "the agency's proposal"
    if (whose or what) and (pointed or asks or text.endswith((":", "："))):
        return True
    return pointed and asks


def _signed_off(lines: list[str]) -> bool:
    return any(_signs_off(lines, i) >= 0 for i in range(len(lines)))


def material_spans(text: str) -> list[tuple[int, int]]:
    """Where the material of a message is: (start, end) character spans, in order."""
    spans = _lines(text)
    lines = [text[s:e] for s, e in spans]
    # Paragraphs as lists of line numbers; a short first line that attests to the lines
    # after it ("업체 카톡 복붙", "Their offer:") stands as a paragraph of its own.
    units: list[list[int]] = []
    current: list[int] = []
    for number, line in enumerate([*lines, ""]):
        if line.strip():
            current.append(number)
            continue
        if current:
            if len(current) >= 2 and _attests(lines[current[0]]):
                units += [[current[0]], current[1:]]
            else:
                units.append(current)
        current = []
    if not units:
        return []
    material: set[int] = set()
    texts = ["\n".join(lines[i] for i in unit) for unit in units]
    unit_lines = [[lines[i] for i in unit] for unit in units]
    signed = [_signed_off(u) for u in unit_lines]
    shaped = [_shaped(u) for u in unit_lines]
    # The first unit from each on that ends in a sign-off (len(units): none).
    next_signed = [len(units)] * (len(units) + 1)
    for index in range(len(units) - 1, -1, -1):
        next_signed[index] = index if signed[index] else next_signed[index + 1]
    last = len(units) - 1
    last_is_short = _short(texts[last]) and shaped[last] is None and not signed[last]

    def own_after(first: int) -> int:
        """Where material that runs from unit `first` to the end stops: after a sign-off,
        or before a last short paragraph (the person's words after the paste)."""
        if next_signed[min(first, len(units))] < len(units):
            return next_signed[first] + 1
        return last if last - first >= 1 and last_is_short else len(units)

    separators = [i for i, line in enumerate(lines) if _SEPARATOR_LINE.search(line)]
    if separators:
        if len(separators) >= 2:
            material.update(range(separators[0], separators[-1] + 1))
        else:
            first = next(u for u, unit in enumerate(units) if separators[0] <= unit[-1])
            for unit in units[first : max(own_after(first + 1), first + 1)]:
                material.update(i for i in unit if i >= separators[0])
    greeting_unit, covered = -1, 0
    for index, unit in enumerate(units):
        lines_shaped = shaped[index]
        if lines_shaped is not None:
            first, final = lines_shaped
            material.update(unit[first : final + 1])
            if _HEADER_LINE.match(unit_lines[index][first]):
                # A mail's headers: its body runs on to its sign-off.
                end = own_after(index + 1)
                for later in units[max(index + 1, covered) : end]:
                    material.update(later)
                covered = max(covered, end)
        if _GREETING_LINE.match(unit_lines[index][0]) and greeting_unit < 0:
            greeting_unit = index
        if greeting_unit >= 0 and index > greeting_unit and signed[index]:
            for between in units[greeting_unit : index + 1]:
                material.update(between)
            greeting_unit = -1
    # A block set apart from a short paragraph of the person's that attests to it.
    if len(units) >= 2:
        if _attests(texts[0]) and not material.intersection(units[0]):
            for unit in units[1 : own_after(1)]:
                material.update(unit)
        elif _attests(texts[-1]) and not material.intersection(units[-1]):
            before = units[:-1]
            if sum(len(u) for u in before) >= 2 or sum(len(t) for t in texts[:-1]) >= 150:
                for unit in before:
                    material.update(unit)
    found: list[tuple[int, int]] = []
    for number in sorted(material):
        start, end = spans[number]
        if found and text[found[-1][1] : start].strip() == "":
            found[-1] = (found[-1][0], end)
        else:
            found.append((start, end))
    return found


def _asked(sentence: str) -> bool:
    return bool(re.search(r"[?？][ \t]*$|(?:까요?|나요|니|냐|는지|될까|할까)[.!~ \t]*$", sentence))


def adopts_material(own: str) -> bool:
    """Whether the person, in their own words, takes the material as theirs ("이대로
    하자", "그 조건으로 진행해요", "use their terms"); not when they ask whether to or
    say not to."""
    for sentence in re.split(r"(?<=[.!?。！？])\s+|\n+", own):
        if _ADOPTS.search(sentence) and not _asked(sentence) and not _NEGATED.search(sentence):
            return True
    return False


def without_material(text: str) -> tuple[str, str]:
    """The person's own words of a message and the material in it, apart: (own, material).
    Material the person adopts in their own words is theirs: own holds it, and no
    material is left."""
    spans = material_spans(text)
    if not spans:
        return text, ""
    own_parts, material_parts, start = [], [], 0
    for first, end in spans:
        own_parts.append(text[start:first])
        material_parts.append(text[first:end])
        start = end
    own_parts.append(text[start:])
    own = "\n\n".join(p.strip() for p in own_parts if p.strip())
    material = "\n\n".join(p.strip() for p in material_parts if p.strip())
    if adopts_material(own):
        return f"{own}\n\n{material}", ""
    return own, material
