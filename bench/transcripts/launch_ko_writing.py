# ruff: noqa: E501
"""The Korean transcript's templates for what the team writes: Instagram posts,
onboarding messages, landing page, ads, blog, case studies, support and press reviews."""

import random

from bench.transcripts.common import josa, pick, sample, won
from bench.transcripts.launch_ko_data import (
    AD_COPY_KO,
    ANGLES,
    AREAS,
    BLOG_TITLES_KO,
    CAFES,
    CASE_QUOTES_KO,
    CLOSING,
    COMPETITORS,
    FEATURES,
    HEADLINES_KO,
    ONBOARD_STEPS,
    OWNERS,
    QUOTES_KO,
    SECTIONS_KO,
    SUPPORT_KO,
    THEMES,
    WEEKDAYS,
)
from bench.transcripts.templates import closing


def _instagram(rng: random.Random, seq: int, state: dict[str, object]) -> tuple[str, str]:
    theme = pick(rng, list(THEMES))
    content = THEMES[theme]
    n = rng.randint(3, 5)
    instruction = pick(
        rng,
        [
            f"단골노트 인스타그램에 올릴 게시물 {n}개 초안 부탁해요. 주제는 '{theme}', 각각 질문으로 끝나게요.",
            f"다음 주 인스타 게시물 '{theme}' 주제로 {n}개만 써 주세요. 광고 티 안 나게요.",
            f"지난주 게시물 반응이 별로였어요. '{theme}' 주제로 {n}개 새로 써 보고, 좀 더 사장님 입장에서요.",
        ],
    )
    posts = []
    for i, angle in enumerate(sample(rng, ANGLES, n), start=1):
        hook = pick(rng, content["hooks"])
        points = sample(rng, content["points"], rng.randint(2, 4))
        cafe, area, owner = pick(rng, CAFES), pick(rng, AREAS), pick(rng, OWNERS)
        if "이야기" in angle:
            body = (
                f"지난달 {area}의 '{cafe}'에서 {owner} 사장님의 오후를 지켜봤습니다. "
                + " ".join(points)
            )
        elif "숫자" in angle:
            body = (
                f"베타 매장 중 한 가지 습관만 바꾼 곳들은 6주 만에 재방문이 {rng.randint(12, 35)}% 늘었습니다. "
                + " ".join(points)
            )
        elif "노하우" in angle:
            body = "이렇게 해 보세요.\n" + "\n".join(
                f"{k}. {p}" for k, p in enumerate(points, start=1)
            )
        elif "반대로" in angle:
            body = (
                "앱 하나 깐다고 단골이 생기지는 않습니다. "
                + " ".join(points)
                + " 도구보다 습관이 먼저입니다."
            )
        else:
            body = " ".join(points)
        posts.append(
            f"게시물 {i} — {angle}\n\n{hook}\n\n{body}\n\n{pick(rng, content['questions'])}"
        )
    reply = (
        "초안입니다. Mara와 같이 봤습니다.\n\n"
        + "\n\n---\n\n".join(posts)
        + f"\n\n---\n\n추천: {pick(rng, WEEKDAYS)} 오전에 게시물 {rng.randint(1, n)}번. 첫 문장이 가장 분명합니다. 나머지는 한 주에 하나씩 나눠 올리는 게 좋겠습니다. "
        "예약 전에 법무 검토 묶음에 넣겠습니다. "
        f"측정: 게시 후 48시간 동안 저장 수와 프로필 방문 수. 저장이 {rng.randint(30, 90)}개를 넘으면 리타기팅 광고 소재로 쓰겠습니다."
    )
    return instruction, closing(rng, "이번 게시물", reply, CLOSING)


def _onboarding(rng: random.Random, seq: int, state: dict[str, object]) -> tuple[str, str]:
    who, topic, benefit, where = ONBOARD_STEPS[rng.randrange(len(ONBOARD_STEPS))]
    day = rng.choice([2, 3, 5, 7, 10])
    owner, cafe = pick(rng, OWNERS), pick(rng, CAFES)
    instruction = pick(
        rng,
        [
            f"가입 {day}일 차에 아직 {who} 매장에 보낼 알림톡 문구 써 주세요. 짧게요.",
            f"{day}일 차 온보딩 메시지 클릭률이 낮아요. {who} 매장 대상으로 다시 써 주세요.",
            f"{who} 매장이 생각보다 많아요. {day}일 차에 보낼 메시지를 만들고, 누구 이름으로 보낼지도 정해 주세요.",
        ],
    )
    reply = (
        "알림톡 문구 (Mara 초안, 제가 다듬었습니다)\n\n"
        f"[단골노트] 사장님, {topic} 아직이시라면 지금 1분만 내 주세요.\n\n"
        f"단골노트를 꾸준히 쓰는 매장은 대부분 {topic}부터 시작했어요. {benefit}.\n\n"
        f'{cafe} {owner} 사장님 말씀: "{pick(rng, QUOTES_KO)}"\n\n'
        f"방법: 앱에서 {josa(where, '을를')} 누르고 안내를 따라가시면 됩니다. 중간에 멈춰도 이어서 할 수 있어요.\n\n"
        "[지금 하기]\n\n궁금한 점은 이 채팅방에 남겨 주세요. 사람이 직접 답합니다.\n\n"
        "운영 메모\n"
        f"- {day}일 차까지 해당 행동을 안 한 매장에만 보냅니다. 이미 한 매장에 같은 말을 하지 않도록요.\n"
        "- 버튼 하나, 할 일 하나. 예전 버전의 기능 나열은 뺐습니다.\n"
        f"- 발신: {pick(rng, ['대표님 이름 — 이 시점엔 대표 이름 메시지가 답장을 더 많이 받습니다', '단골노트 팀 — 사용법 안내라서 도와줄 수 있는 팀 이름이 낫습니다'])}\n"
        f"- 측정: 클릭률과 48시간 안에 해당 단계를 마친 매장 비율. 예전 버전은 클릭률 {rng.randint(2, 5)}.{rng.randint(0, 9)}%였고, {rng.randint(6, 9)}%면 성공으로 보겠습니다.\n"
        "- 사장님 인용은 서면 동의를 받고, 전체 문구는 다음 묶음으로 법무 검토에 넣습니다."
    )
    return instruction, closing(rng, f"{day}일 차 메시지", reply, CLOSING)


def _landing(rng: random.Random, seq: int, state: dict[str, object]) -> tuple[str, str]:
    section, problem = SECTIONS_KO[rng.randrange(len(SECTIONS_KO))]
    feats = sample(rng, FEATURES, rng.randint(3, 5))
    instruction = pick(
        rng,
        [
            f"랜딩페이지 '{section}' 섹션 다시 써 주세요. 지금은 {problem}는 느낌이에요.",
            f"Iris가 '{section}' 섹션이 {problem}고 하네요. 새 문구랑 왜 더 나은지 알려 주세요.",
        ],
    )
    reply = (
        f"'{section}' 섹션 수정안 (Mara와 같이 썼습니다)\n\n제목 후보\n"
        + "\n".join(f"{i}. {h}" for i, h in enumerate(sample(rng, HEADLINES_KO, 3), start=1))
        + f"\n\n부제: {pick(rng, ['적립, 쿠폰, 단골 알림, 미리 주문까지 한 앱에서. 태블릿도, 포스 연동도 필요 없습니다.', '사장님 휴대폰 하나로 오늘부터 시작할 수 있습니다.', '베타 매장 사장님들과 함께 만든, 혼자 운영하는 카페를 위한 앱입니다.'])}\n\n"
        "아래 항목\n"
        + "\n".join(
            f"- {f}: {pick(rng, ['몇 분이면 설정 끝', '휴대폰 하나면 충분', '아르바이트생도 바로 사용', '모든 요금제에 포함', '베타 매장과 함께 설계', '손님은 앱 설치가 필요 없음'])}"
            for f in feats
        )
        + f"\n\n버튼: {pick(rng, ['무료로 시작하기', '지금 무료로 써 보기', '우리 가게 등록하기'])} (보조 링크: {pick(rng, ['2분 둘러보기', '사용 방법 보기', '상담 신청'])})\n\n"
        f"더 나은 이유: 예전 문구는 기능을 설명했고, 이번 문구는 사장님이 원하는 하루를 설명합니다. 방문자의 {rng.randint(70, 86)}%가 휴대폰이라 한 줄에 한 가지 이야기만 넣었습니다. "
        "테스트: 제목 1번과 2번을 2주 동안 비교하고, 스크롤 깊이가 아니라 가입 시작으로 판단하겠습니다. 게시 전에 법무 검토를 거칩니다."
    )
    return instruction, closing(rng, f"'{section}' 섹션", reply, CLOSING)


def _ads(rng: random.Random, seq: int, state: dict[str, object]) -> tuple[str, str]:
    platform = pick(rng, ["네이버 검색광고", "메타(인스타그램)", "당근 비즈프로필"])
    monthly = rng.randint(10, 40) * 100_000
    instruction = pick(
        rng,
        [
            f"{platform} 캠페인 구조 잡아 주세요. 처음엔 월 {josa(won(monthly), '으로로')}요. 캠페인, 그룹, 문구, 측정까지요.",
            f"출시 전에 {platform} 캠페인을 다시 짜야 할 것 같아요. 월 {won(monthly)} 기준으로 제안해 주세요.",
        ],
    )
    if platform == "네이버 검색광고":
        groups = [
            ("카페 앱", ["카페 스탬프 앱", "카페 쿠폰 어플", "카페 적립 앱"]),
            ("단골 관리", ["단골 관리 앱", "카페 고객 관리", "단골 손님 관리"]),
            ("쿠폰", ["전자 쿠폰 카페", "종이 쿠폰 대체", "스탬프 쿠폰 앱"]),
            ("경쟁 전환", [pick(rng, COMPETITORS) + " 대안", "카페 적립 앱 비교"]),
            ("미리 주문", ["카페 미리 주문", "카페 사전 주문 앱"]),
        ]
        body = "\n".join(
            f"- 광고그룹 '{g}': " + ", ".join(f"'{k}'" for k in kws)
            for g, kws in sample(rng, groups, rng.randint(3, 5))
        )
        extra = f"제외 키워드: 알바, 채용, 창업 비용, 무료 도안{pick(rng, ['', ', 프랜차이즈', ', 인테리어'])}.\n첫 달은 구문 일치와 정확 일치만 씁니다."
    elif platform == "메타(인스타그램)":
        body = (
            "- 타깃 A: 관심사 카페 창업·바리스타·에스프레소 머신, 25~49세, 전국\n"
            "- 타깃 B: 단골노트 인스타그램 참여자와 유사 타깃\n"
            f"- 타깃 C: 최근 {pick(rng, [30, 60, 90])}일 사이트 방문자(리타기팅)"
        )
        extra = f"형식: A와 B는 릴스 15초, C는 {pick(rng, ['베타 매장 후기 카드', '설명회 클립', '요금제 비교 카드'])}."
    else:
        body = (
            f"- 지역: 베타 매장이 많은 {', '.join(sample(rng, AREAS, 3))} 반경 3km\n"
            "- 형식: 비즈프로필 소식 + 지역 광고\n"
            f"- 노출 빈도: 주 {pick(rng, [2, 3])}회 이하"
        )
        extra = "소재: 동네 카페 사장님 인터뷰 한 장면, '우리 동네 카페들이 쓰는 앱' 문구."
    copy = sample(rng, AD_COPY_KO, 2)
    reply = (
        f"{platform} — 월 {won(monthly)} 구조안\n\n{body}\n\n{extra}\n\n"
        f'광고 문구(그룹마다 두 가지)\nA: "{copy[0]}"\nB: "{copy[1]}"\n\n'
        f"예산: 첫 주 이후 성과가 가장 좋은 그룹에 {rng.randint(55, 75)}%, 나머지는 배우는 동안 고르게.\n\n"
        f"측정: 가입 매장당 비용과 활성 매장당 비용(두 번째가 더 중요). 중단 기준: 가입 30곳 이후 활성 매장당 {won(rng.randint(3, 9) * 10_000)}을 넘는 그룹은 멈춥니다.\n\n"
        "모든 문구는 출시 전 법무 검토를 거치고, 그룹마다 승인된 예비 문구 두 개를 확보해 두겠습니다. 집행은 Mara가 맡습니다."
    )
    return instruction, closing(rng, f"{platform} 캠페인", reply, CLOSING)


def _blog(rng: random.Random, seq: int, state: dict[str, object]) -> tuple[str, str]:
    title, keyword, theme = pick(rng, BLOG_TITLES_KO)
    points = sample(rng, THEMES[theme]["points"], rng.randint(3, 5))
    chars = rng.randint(25, 45) * 100
    instruction = pick(
        rng,
        [
            f"블로그 글 개요 부탁해요: '{title}'. 목표 키워드랑 내부 링크도요.",
            f"다음 블로그 글 제목은 '{title}'. 외부 작가에게 넘길 개요 만들어 주세요.",
        ],
    )
    reply = (
        f"개요 — {title}\n\n목표 키워드: {keyword}\n분량: 약 {chars:,}자\n독자: 검색으로 들어온, 아직 단골노트를 모르는 카페 사장님\n\n"
        "도입(300자): 사장님이 쓰는 말로 문제를 꺼내고, 숫자 하나와 이 글에서 얻어 갈 것을 약속합니다.\n\n"
        + "\n\n".join(
            f"소제목 {i}: {p}\n- 왜 중요한지, 카페 사례 하나\n- 이번 주에 바로 해 볼 수 있는 일 하나\n- {pick(rng, ['베타 매장 숫자 하나를 근거로', '사장님 인용 한 줄(동의받은 것만)', '흔한 오해 하나와 바로잡기', '단골노트 화면 캡처 한 장(데모 계정)'])}"
            for i, p in enumerate(points, start=1)
        )
        + "\n\n마무리: 캡처해 둘 수 있는 체크리스트, 무료 요금제로 가는 부드러운 링크(강매 금지).\n\n"
        "내부 링크: 요금 페이지, 관련 도움말, 맞는 고객 사례가 있으면 그것도.\n\n"
        f"작가 브리프: 과장 표현 금지, 사장님 인용은 서면 동의가 있는 것만, 초고는 {pick(rng, WEEKDAYS)}까지. "
        "측정: 60일 뒤 검색 유입과 글에서 시작된 가입. 게시 다음 주 뉴스레터에도 싣겠습니다."
    )
    return instruction, closing(rng, "블로그 글", reply, CLOSING)


def _case_study(rng: random.Random, seq: int, state: dict[str, object]) -> tuple[str, str]:
    owner, cafe, area = pick(rng, OWNERS), pick(rng, CAFES), pick(rng, AREAS)
    seats = rng.randint(8, 18)
    before, after = rng.randint(16, 24), rng.randint(9, 14)
    regulars = rng.randint(120, 480)
    instruction = f"{area} {cafe} {owner} 사장님 인터뷰로 고객 사례 초안 써 주세요. 좌석 {seats}석, 단골 재방문 주기가 {before}일에서 {after}일로 줄었고, 석 달 동안 단골 명단이 {regulars}명 쌓였대요."
    reply = (
        f"제목: {josa(cafe, '은는')} 어떻게 단골 재방문 주기를 {before}일에서 {after}일로 줄였나\n\n"
        f"매장: {area} {cafe}, 좌석 {seats}석, {pick(rng, ['사장님 혼자 운영', '사장님과 아르바이트생 한 명', '부부가 함께 운영'])}. {pick(rng, ['주택가 골목', '오피스 골목', '대학가 이면도로'])}에 있고 손님 대부분이 단골입니다.\n\n"
        f"도입 전: {pick(rng, ['종이 쿠폰을 쓰다 보니 잃어버린 손님이 많았습니다', '단골 얼굴은 알아도 마지막 방문일은 알 수 없었습니다', '인스타그램 공지만으로는 휴무 소식이 단골에게 닿지 않았습니다'])}. 한가한 오후를 채울 방법도 없었습니다.\n\n"
        "바꾼 것: 전화번호 적립, 한 달 넘게 안 온 단골에게 안부 쿠폰, 비 오는 날 따뜻한 음료 알림.\n\n"
        f"결과(석 달, 매장 자체 기록)\n- 재방문 주기: {before}일 → {after}일\n- 단골 명단: {regulars}명\n- 종이 쿠폰 인쇄: 중단\n\n"
        f'인용: "{pick(rng, CASE_QUOTES_KO)}" — {owner} 사장님\n\n'
        f"다음 단계: 숫자와 인용 문구를 {owner} 사장님께 승인받고, 법무 검토로 넘기겠습니다. 매장 사진도 요청드리고, 10일 차 메시지와 랜딩페이지, 영업용 PDF에 쓰겠습니다."
    )
    return instruction, closing(rng, "고객 사례", reply, CLOSING)


def _support(rng: random.Random, seq: int, state: dict[str, object]) -> tuple[str, str]:
    cases = sample(rng, SUPPORT_KO, rng.randint(3, 5))
    instruction = "출시 주간 상담용 답변 템플릿 만들어 주세요. 따뜻하지만 짧게요.\n" + "\n".join(
        f"- {c}" for c, _ in cases
    )
    reply = (
        "출시 주간 상담 템플릿\n\n"
        + "\n\n".join(
            f"상황: {c}\n답변: 사장님, 문의 주셔서 감사합니다. {a} 그래도 해결이 안 되면 이 채팅에 남겨 주세요. 오늘 안에 같이 확인하겠습니다.\n— {{상담원 이름}}, 단골노트"
            for c, a in cases
        )
        + "\n\n메모: 모든 답변은 사람에게 다시 연결되는 말로 끝나고, 수정 날짜는 약속하지 않습니다. "
        f"템플릿마다 태그를 달아 출시 당일 상위 {len(cases)}개 문의를 18시 정리 때 보겠습니다. 절차는 Theo가 확인했습니다."
    )
    return instruction, closing(rng, "상담 템플릿", reply, CLOSING)


def _press_review(rng: random.Random, seq: int, state: dict[str, object]) -> tuple[str, str]:
    piece = pick(
        rng,
        ["보도자료 초안", "전문지 기자 피칭 메일", "보도자료 키트의 대표 인터뷰", "회사 소개 자료"],
    )
    opening = pick(
        rng,
        [
            "단골랩이 혁신적인 카페 플랫폼 단골노트를 출시하며 카페 업계의 패러다임을 바꾼다. 열정 넘치는 팀이 만든 단골노트는 적립과 알림을 하나로 묶었다.",
            "동네 카페 사장님들은 매주 몇 시간을 종이 쿠폰과 공지에 쓴다. 단골랩의 새 앱 단골노트는 전국 카페와 함께 만든 단골 관리 앱이다.",
            "단골노트는 스마트한 자동화로 카페 매출을 획기적으로 끌어올리는 업계 최초의 솔루션이다.",
        ],
    )
    issues = sample(
        rng,
        [
            (
                "첫 문단이 카페의 문제가 아니라 우리 이야기다",
                "동네 카페의 단골 관리 부담으로 시작하고, 두 번째 문장에서 단골노트를 소개하세요.",
            ),
            (
                "'혁신', '패러다임'이 세 번 나온다",
                "빼 주세요. 기자들도 지우고, 법무 검토에서도 걸립니다.",
            ),
            (
                "베타 숫자에 기준 날짜가 없다",
                "'몇 월 기준'을 붙여서 출시 당일 숫자로 오해하지 않게 해 주세요.",
            ),
            (
                "사장님 인용이 없다",
                "고객 사례에서 승인받은 인용을 쓰세요. 대행사에 보내 두었습니다.",
            ),
            (
                "회사 소개가 네 문장이다",
                "두 문장으로 — 무엇인지, 누구를 위한 것인지, 어디에 있는지.",
            ),
            ("요금이 맨 끝에 숨어 있다", "팩트 박스로 올려 주세요. 기자들이 가장 먼저 찾습니다."),
            (
                "'매출 상승'을 보장하는 것처럼 읽힌다",
                "보여 줄 수 있는 것만: 재방문 주기, 적립 시간 단축.",
            ),
        ],
        rng.randint(3, 5),
    )
    instruction = f'대행사가 {josa(piece, "을를")} 보냈어요. 검토하고 뭘 돌려보내야 할지 알려 주세요. 첫 부분이 이래요:\n\n"{opening} …"'
    reply = (
        f"{piece} 검토 의견\n\n"
        + "\n".join(f"{i}. 문제: {p}.\n   수정: {f}" for i, (p, f) in enumerate(issues, start=1))
        + "\n\n좋은 점: 구성, 제목 길이, 맨 위의 엠바고 표기.\n\n"
        f"목록보다는 변경 내용 추적으로 돌려보내는 게 좋겠습니다. 대행사가 하루 안에 반영합니다. 그다음 법무 검토를 거치고, 첫 사전 브리핑까지 영업일 {pick(rng, ['이틀', '사흘'])}은 남겨 두겠습니다."
    )
    return instruction, closing(rng, piece, reply, CLOSING)
