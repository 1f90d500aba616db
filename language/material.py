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
    sentence = sentence.strip()
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
