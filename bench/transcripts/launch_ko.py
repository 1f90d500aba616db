# ruff: noqa: E501
"""Korean transcript: the CEO of 단골랩 and Avery, the chief of staff, in the master
channel, over ten weeks of preparing the launch of 단골노트 (a regulars-and-stamps app for
neighbourhood cafés). Avery plans, answers, and hands work to Mara, Theo and Iris."""

import random
from datetime import date

from bench.transcripts.common import Spec, Template, josa, pick, sample, won
from bench.transcripts.launch_ko_data import (
    AB_KO,
    AD_COPY_KO,
    ANGLES,
    AREAS,
    ASSIGN_TOPICS,
    BLOG_TITLES_KO,
    CAFES,
    CASE_QUOTES_KO,
    CHECKLIST,
    CLOSING,
    COMPARE_ROWS_KO,
    COMPETITORS,
    FACTS,
    FAQ,
    FEATURES,
    HEADLINES_KO,
    INTERVIEW_NOTES_KO,
    METRIC_ACTIONS_KO,
    OFFERS_KO,
    ONBOARD_STEPS,
    ORGS_KO,
    OWNERS,
    PLANTED,
    QUICK_KO,
    QUOTES_KO,
    SECTIONS_KO,
    SEGMENTS_KO,
    SEMINAR_TOPICS,
    SPEND_LINES_KO,
    SUPPORT_KO,
    TASKS_KO,
    TEAM,
    THEME_TEXT_KO,
    THEMES,
    WEEK_PLAN_KO,
    WEEKDAYS,
)
from bench.transcripts.templates import checklist, closing, faq, quick


def _more(rng: random.Random, subject: str, reply: str) -> str:
    return closing(rng, subject, reply, CLOSING)


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
    return instruction, _more(rng, "이번 게시물", reply)


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
    return instruction, _more(rng, f"{day}일 차 메시지", reply)


def _metrics(rng: random.Random, seq: int, state: dict[str, object]) -> tuple[str, str]:
    week = int(str(state.get("week", 2))) + 1
    prev = state.get("metrics")
    visits = (
        int(prev[0] * rng.uniform(1.02, 1.18))
        if isinstance(prev, tuple)
        else rng.randint(2200, 3100)
    )
    signups = max(int(visits * rng.uniform(0.03, 0.05)), 20)
    activated = int(signups * rng.uniform(0.45, 0.66))
    paid = int(activated * rng.uniform(0.1, 0.22))
    spend = rng.randint(30, 90) * 10_000
    state["week"], state["metrics"] = week, (visits, signups, activated, paid, spend)
    instruction = pick(
        rng,
        [
            f"{week}주 차 숫자예요. 사이트 방문 {visits:,}, 가입 매장 {signups}곳, 첫 적립 완료 {activated}곳, 유료 전환 {paid}곳. 검색광고비는 {won(spend)} 썼어요. 어떻게 보세요? 다음 주에 뭘 바꿀까요?",
            f"{week}주 차: 방문 {visits:,}, 가입 {signups}곳, 활성 {activated}곳, 유료 {paid}곳, 광고비 {won(spend)}. 해석 부탁해요.",
        ],
    )
    rate = signups / visits * 100
    activation = activated / signups * 100
    lines = [
        f"{week}주 차 한 줄 요약: 가입 전환율 {rate:.1f}%, 활성화율 {activation:.0f}%, 가입 매장당 비용 {won(int(round(spend / signups, -2)))}, 활성 매장당 비용 {won(int(round(spend / max(activated, 1), -2)))}.",
        "",
    ]
    if isinstance(prev, tuple):
        lines.append(
            f"{week - 1}주 차 대비: 방문 {(visits - prev[0]) / prev[0] * 100:+.0f}%, 가입 {(signups - prev[1]) / max(prev[1], 1) * 100:+.0f}%, "
            f"활성 {(activated - prev[2]) / max(prev[2], 1) * 100:+.0f}%, 유료 {paid - prev[3]:+d}곳."
        )
    source = pick(
        rng,
        [
            "네이버 검색광고",
            "인스타그램",
            "뉴스레터",
            "자연 검색",
            "베타 매장 추천",
            "카페 창업 커뮤니티 글",
        ],
    )
    lines += [
        "",
        "해석",
        f"- 새 방문의 대부분은 {source}에서 왔습니다. 이 경로의 가입 전환율이 사이트 평균과 비슷해서, 숫자만 부풀린 게 아니라 실제 관심입니다.",
        f"- 봐야 할 숫자는 활성화율 {activation:.0f}%입니다. 첫 주에 적립을 한 건도 안 한 매장은 거의 유료로 넘어오지 않습니다.",
        f"- 유료 {paid}곳은 베타 때 흐름과 비슷합니다. 이 정도 규모에서 한 주의 유료 숫자에 큰 의미를 두진 않겠습니다.",
        f"- 가입의 {rng.randint(70, 88)}%가 휴대폰에서 일어났습니다. 대부분 영업 중 짬을 내서 가입하시기 때문에, 가입 직후 메시지가 중요합니다.",
    ]
    if rng.random() < 0.5:
        lines.append(
            f"- {pick(rng, WEEKDAYS)}에 커뮤니티 글 하나로 방문이 튀었지만 가입은 거의 없어서 추세 계산에서는 뺐습니다."
        )
    lines += ["", "다음 주에 바꿀 것"]
    lines += [
        f"{i}. {a}"
        for i, a in enumerate(sample(rng, METRIC_ACTIONS_KO, rng.randint(2, 4)), start=1)
    ]
    lines += [
        "",
        f"담당은 광고와 메시지 Mara, 제품 쪽은 Theo입니다. 다음 금요일에 {week - 1}~{week + 1}주 차를 나란히 놓고 효과를 보고드리겠습니다.",
    ]
    return instruction, _more(rng, f"{week}주 차 개선안", "\n".join(lines))


def _competitor(rng: random.Random, seq: int, state: dict[str, object]) -> tuple[str, str]:
    rival = pick(rng, COMPETITORS)
    fee = rng.randint(15, 45) * 1000
    instruction = pick(
        rng,
        [
            f"베타 매장 사장님이 {rival}이랑 뭐가 다르냐고 물어보셨어요. 영업 FAQ에 쓸 수 있게 공정하게 비교해 주세요.",
            f"상담 때마다 '{rival} 쓰면 안 돼요?'라는 질문이 나와요. 보내 드릴 비교표랑 통화용 한 줄 답변 부탁해요.",
            f"{pick(rng, AREAS)} {pick(rng, CAFES)} 사장님이 우리랑 {rival} 사이에서 고민 중이래요. 뭐라고 말씀드릴까요?",
        ],
    )
    rows = [
        (
            "요금",
            f"{josa(rival, '은는')} 월 {won(fee)}에 태블릿 대여료가 따로 있고, 우리는 매장당 한 가지 요금입니다.",
        )
    ]
    rows += [
        (n, t.format(rival=rival, rival_eun=josa(rival, "은는")))
        for n, t in sample(rng, COMPARE_ROWS_KO, rng.randint(4, 6))
    ]
    strengths = sample(
        rng,
        [
            "시장에 먼저 나와서 아는 사장님이 많다",
            "포스 업체와 제휴가 있다",
            "프랜차이즈용 기능이 많다",
            "오프라인 영업 조직이 있다",
        ],
        2,
    )
    reply = (
        f"단골노트와 {rival} 비교 (공정한 버전 — {rival} 공개 자료로 확인되는 것만 적었습니다)\n\n"
        + "\n".join(f"- {n}: {t}" for n, t in rows)
        + f"\n\n{josa(rival, '이가')} 나은 점: {strengths[0]}, 그리고 {strengths[1]}는 점입니다. 사장님들끼리 다 이야기하시니 숨기지 않는 게 낫습니다.\n\n"
        f'통화용 한 줄: "혼자나 둘이 운영하는 동네 카페라서 적립, 단골 알림, 미리 주문을 한 요금으로 쓰고 싶으시면 단골노트가 맞습니다. 여러 매장을 한 번에 관리하셔야 하면 지금은 {josa(rival, "이가")} 더 맞을 수 있습니다."\n\n'
        "공개 광고나 페이지에는 경쟁사 이름을 쓰지 않겠습니다(문서로 쓰기 전에 법무 검토도 거칩니다). 통화에서는 괜찮습니다. "
        f"잠재 고객이 {josa(rival, '을를')} 언급할 때마다 기록하고 있고, 지금까지 상담 {rng.randint(3, 14)}건에서 나왔습니다."
    )
    return instruction, _more(rng, f"{rival} 비교 자료", reply)


def _seminar(rng: random.Random, seq: int, state: dict[str, object]) -> tuple[str, str]:
    topic = pick(rng, SEMINAR_TOPICS)
    owner, cafe = pick(rng, OWNERS), pick(rng, CAFES)
    minutes = pick(rng, [30, 40, 50])
    goal = rng.randint(8, 25) * 10
    instruction = pick(
        rng,
        [
            f"출시 후에 '{topic}' 주제로 사장님 온라인 설명회를 하고 싶어요. {cafe} {owner} 사장님이 같이 해 주실 수 있대요. 계획 짜 주세요.",
            f"'{topic}' 설명회 {minutes}분짜리 진행표 부탁해요. {cafe} {owner} 사장님이 사례 발표를 맡아 주세요.",
        ],
    )
    segments = sample(rng, SEGMENTS_KO, rng.randint(3, 5))
    slot = (minutes - 12) // len(segments)
    show = ["00:00 인사, 오늘 가져가실 것"]
    t = 3
    for s in segments:
        show.append(f"{t:02d}:00 {s.format(name=owner)}")
        t += slot
    show.append(f"{t:02d}:00 질의응답(처음부터 채팅으로 질문을 받고 Mara가 정리)")
    show.append(f"{minutes - 2:02d}:00 다음 단계 안내와 다시보기 링크")
    promo = sample(
        rng,
        [
            "3주 전: 뉴스레터와 가입 매장에 공지, 대표님 SNS 게시",
            "2주 전: 발표하실 사장님이 직접 문제를 이야기하는 짧은 영상",
            "1주 전: 신청자 리마인드와 가입 매장 2차 안내",
            "전날과 1시간 전: 알림톡 리마인드",
            f"{owner} 사장님께 동네 사장님 단톡방 공유를 부탁",
            "끝난 뒤: 신청자 전원에게 다시보기, 짧은 클립 세 개로 편집",
        ],
        rng.randint(3, 5),
    )
    reply = (
        f"설명회: {topic} — {cafe} {owner} 사장님과 함께 ({minutes}분)\n\n진행표\n"
        + "\n".join(show)
        + "\n\n홍보\n"
        + "\n".join(f"- {p}" for p in promo)
        + f"\n\n목표: 신청 {goal}명, 실시간 참석률 {rng.randint(30, 40)}~{rng.randint(42, 50)}%, 설명회 후 일주일 안에 새로 가입한 매장 수.\n\n"
        f"준비: 이틀 전 {owner} 사장님과 {pick(rng, [20, 30])}분 리허설, 새 템플릿 슬라이드, 슬라이드와 안내 문구는 일주일 전에 법무 검토. "
        f"{pick(rng, ['플랫폼 녹화가 실패할 때를 대비해 로컬 녹화도 합니다.', 'Theo가 패널로 들어와 기술 질문에 채팅으로 답합니다.', '발표하신 사장님께는 다음 날 감사 인사와 다시보기를 보내겠습니다.'])}"
    )
    return instruction, _more(rng, "설명회", reply)


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
    return instruction, _more(rng, f"'{section}' 섹션", reply)


def _interviews(rng: random.Random, seq: int, state: dict[str, object]) -> tuple[str, str]:
    n = rng.randint(4, 7)
    owners, cafes, areas = sample(rng, OWNERS, n), sample(rng, CAFES, n), sample(rng, AREAS, n)
    notes = sample(rng, INTERVIEW_NOTES_KO, n)
    listed = "\n".join(
        f"- {o} 사장님({c}, {a}): {note}"
        for o, c, a, (note, _) in zip(owners, cafes, areas, notes, strict=True)
    )
    instruction = f"이번 주에 베타 매장 사장님 {n}분과 통화했어요. 메모 아래에 붙일게요. 공통 주제랑 출시 메시지에 주는 의미 정리해 주세요.\n{listed}"
    reply = (
        "이번 주 통화에서 나온 주제\n\n"
        + "\n".join(f"{i}. {THEME_TEXT_KO[t]}" for i, (_, t) in enumerate(notes, start=1))
        + "\n\n출시 메시지에 주는 의미\n"
        + "\n".join(
            f"- {m}"
            for m in sample(
                rng,
                [
                    "이전 관련 문구는 '기존 적립 그대로 옮겨 드립니다'로 시작합니다.",
                    "사장님이 아니라 아르바이트생을 위한 자료 하나를 만듭니다. '첫 출근 날 적립 안내' 한 장.",
                    "요금제 이름 바로 아래에 '포함된 것' 한 줄을 넣습니다.",
                    "첫 화면 이미지를 노트북 대신 계산대 태블릿 장면으로 바꿔 봅니다.",
                    "단골 알림 예시 문구 다섯 개를 기본 제공한다고 알립니다.",
                    "'손님은 앱 설치 필요 없음'을 강조합니다. 두 분이 먼저 이야기하셨습니다.",
                ],
                3,
            )
        )
        + "\n\n후속 조치\n"
        + "\n".join(
            f"- {o} 사장님: 인용해도 되는지 서면 동의 요청, 관련 도움말 링크 전달"
            for o in owners[:3]
        )
        + f"\n\n인터뷰 기록에 추가했습니다. 누적 {rng.randint(21, 38)}건이라 한두 통화를 인용하기보다 주제별로 셀 수 있는 단계입니다. 정리는 Mara가 이어서 맡습니다."
    )
    return instruction, _more(rng, "인터뷰 정리", reply)


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
    return instruction, _more(rng, f"{platform} 캠페인", reply)


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
    return instruction, _more(rng, "블로그 글", reply)


def _assign(rng: random.Random, seq: int, state: dict[str, object]) -> tuple[str, str]:
    topic = pick(rng, ASSIGN_TOPICS)
    instruction = pick(
        rng,
        [
            f"{topic}, 팀에 나눠 주세요. 누가 뭘 언제까지 하는지요.",
            f"이번 주 {topic} 관련해서 Mara, Theo, Iris한테 일 좀 나눠 주세요. 겹치는 거 없게요.",
        ],
    )
    lines = []
    for person in TEAM:
        tasks = sample(rng, TASKS_KO[person], rng.randint(2, 3))
        lines.append(f"{person}\n" + "\n".join(f"- {t} — {pick(rng, WEEKDAYS)}까지" for t in tasks))
    reply = (
        f"{topic} 업무 분배입니다. 세 사람에게 각각 전달했습니다.\n\n"
        + "\n\n".join(lines)
        + "\n\n겹치는 부분과 순서\n"
        + f"- {josa(pick(rng, TASKS_KO['Iris']), '이가')} 끝나야 Mara가 {josa(pick(rng, TASKS_KO['Mara']), '을를')} 마무리할 수 있어서, Iris 쪽을 먼저 당겼습니다.\n"
        + f"- Theo는 {josa(pick(rng, TASKS_KO['Theo']), '을를')} 최우선으로 하고, 나머지는 그다음입니다.\n"
        + "- 외부로 나가는 것은 전부 화요일·목요일 법무 검토 묶음에 맞춰 일정을 잡았습니다.\n\n"
        + "진행 상황은 수요일에 한 번 확인하고, 막히는 게 있으면 바로 말씀드리겠습니다."
    )
    return instruction, _more(rng, "이번 업무", reply)


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
    return instruction, _more(rng, "고객 사례", reply)


def _ab_test(rng: random.Random, seq: int, state: dict[str, object]) -> tuple[str, str]:
    element, variants = AB_KO[rng.randrange(len(AB_KO))]
    base, lift = rng.randint(3, 9), rng.randint(15, 30)
    per_arm = rng.randint(18, 45) * 100
    weekly = rng.randint(2000, 3500)
    instruction = f"{element} A/B 테스트 설계해 주세요. 믿을 만한 답이 나오려면 얼마나 걸려요?"
    reply = (
        f"A/B 테스트 — {element}\n\n"
        f"가설: {josa(element, '을를')} 더 분명하게 바꾸면, 누른 다음에 무슨 일이 생기는지 알게 되어 가입 시작이 늘어난다.\n"
        f"변형: {variants} — 한 가지만 바꿔야 원인을 알 수 있습니다.\n"
        f"주 지표: 가입 시작률(현재 약 {base}%). 보조 지표: 그 가입 매장의 활성화율이 떨어지면 안 됩니다.\n\n"
        f"표본: 상대 {lift}% 개선을 신뢰도 95%, 검정력 80%로 잡으려면 변형마다 방문자 약 {per_arm:,}명이 필요합니다. "
        f"주간 방문 {weekly:,}명 기준으로 약 {max(round(per_arm * 2 / weekly), 1)}주라서, {pick(rng, ['이번 주', '월요일까지', '설명회 홍보 전'])}에 시작해야 출시 전에 끝납니다.\n\n"
        "판단 기준(시작 전에 적어 둠): 주 지표에서 이기고 보조 지표가 유지되면 B를 적용. 아니면 A 유지하고 결과만 기록. 중간에 보고 멈추지 않습니다.\n\n"
        "세팅: Theo가 플래그를 넣고, 트래픽을 나누기 전에 두 변형 모두 추적이 되는지 Mara가 확인합니다. B 문구는 먼저 법무 검토."
    )
    return instruction, _more(rng, "테스트", reply)


def _outreach(rng: random.Random, seq: int, state: dict[str, object]) -> tuple[str, str]:
    org, contact, offer = pick(rng, ORGS_KO), pick(rng, OWNERS), pick(rng, OFFERS_KO)
    instruction = f"{org} {contact} 님께 출시 관련 제휴 제안 메일 초안 써 주세요."
    reply = (
        f"제목: {pick(rng, ['회원분들께 도움이 될 제안 하나', '동네 카페 사장님들을 위한 작은 협업 제안', '함께 해 볼 만한 일이 있어 연락드립니다'])}\n\n"
        f"{contact} 님, 안녕하세요.\n\n"
        "단골랩에서 비서실장을 맡고 있는 Avery입니다. 저희는 동네 개인 카페를 위한 단골 관리 앱 단골노트를 만들고 있고, 전국의 카페들과 베타를 운영해 왔습니다.\n\n"
        f"{josa(offer, '을를')} 제안드리고 싶습니다. 카페 운영에서 늘 이야기되지만 잘 다뤄지지 않는 단골 관리에 대해, 회원분들께 실제로 도움이 되는 것을 드리자는 취지입니다.\n\n"
        "저희가 준비할 것: 콘텐츠, 경험을 이야기해 주실 베타 매장 사장님, 진행 전반. 부탁드릴 것: 자리 하나와 솔직한 피드백.\n\n"
        f"{pick(rng, ['다음 주 중', '목요일이나 금요일', '이달 안'])}에 20분 정도 통화 가능하실까요?\n\n감사합니다.\nAvery 드림\n\n"
        f"후속 계획: {rng.randint(5, 8)}일 뒤 한 번만 다시 연락하고, 그 뒤로는 기다립니다. 측정: 답장 수, 그다음 제휴 코드로 들어온 가입. 혜택 조건은 보내기 전에 법무 검토를 거칩니다."
    )
    return instruction, _more(rng, "제휴 제안", reply)


def _spend(rng: random.Random, seq: int, state: dict[str, object]) -> tuple[str, str]:
    spent = {line: rng.randint(5, 60) * 50_000 for line in SPEND_LINES_KO}
    total = sum(spent.values())
    instruction = pick(
        rng,
        [
            "론칭 예산 지금까지 얼마나 썼는지 항목별로 알려 주세요. 걱정할 게 있나요?",
            "재무 쪽에서 채널별 집행 현황을 달래요. 정리해 주세요.",
        ],
    )
    reply = (
        "항목별 집행 현황\n"
        + "\n".join(f"- {line}: {won(v)}" for line, v in spent.items())
        + f"\n지금까지 합계: {won(total)}\n\n"
        f"속도: {pick(rng, ['계획보다 조금 덜 썼습니다. 검색광고 클릭 단가가 예상보다 낮습니다', '계획대로입니다', '메타는 계획보다 빠르고, 검색은 느립니다'])}. "
        f"이번 달 가장 큰 지출은 {josa(pick(rng, ['PR 대행비', '검색광고', '영상 편집', '행사 대관 예약금']), '이었였')}습니다.\n\n"
        "주의할 것\n"
        f"- 메타의 활성 매장당 비용이 {won(rng.randint(4, 12) * 10_000)}으로 검색의 {rng.randint(2, 4)}배입니다. 나아지지 않으면 리타기팅만 남기겠습니다.\n"
        "- 예비비는 손대지 않았고, 출시 주간까지 남겨 두는 게 좋겠습니다.\n"
        f"- 미지급 청구서 두 건({pick(rng, ['대행사', '인쇄소', '영상 편집자'])}, {pick(rng, ['설명회 플랫폼', '사진 촬영', '행사장'])})은 확정 지출로 합계에 넣었습니다.\n\n"
        "같은 표를 재무 시트에 영수증 링크와 함께 올려 두었습니다."
    )
    return instruction, _more(rng, "집행 현황", reply)


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
    return instruction, _more(rng, "상담 템플릿", reply)


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
    return instruction, _more(rng, piece, reply)


def _launch_week(rng: random.Random, seq: int, state: dict[str, object]) -> tuple[str, str]:
    instruction = pick(
        rng,
        [
            "출시 주간을 하루 단위로, 중요한 건 시간 단위로 담당자까지 적어 주세요. 출력해서 벽에 붙일 거예요.",
            "지난 버전 이후에 바뀐 것까지 반영해서 출시 주간 계획 다시 정리해 주세요. 줄마다 담당자 붙여서요.",
        ],
    )
    days = []
    for day, items in WEEK_PLAN_KO.items():
        kept = [items[0], *sample(rng, items[1:], max(len(items) - 1 - rng.randint(0, 1), 1))]
        kept.sort()
        days.append(day + "\n" + "\n".join(f"- {i}" for i in kept))
    reply = (
        "출시 주간 — 벽에 붙이는 버전\n\n"
        + "\n\n".join(days)
        + "\n\n출시 주간 원칙\n"
        + "- 출시 관련 이야기는 이 채널 하나에서, 결정은 결정 기록 문서에 남깁니다.\n"
        + "- 외부로 나가는 건 여전히 법무 검토를 거칩니다. 승인된 예비 문구는 공유 폴더에 있습니다.\n"
        + f"- 출시 당일 정오까지 가입이 {rng.randint(30, 70)}곳 아래면 회의 말고 15분 긴급 점검을 합니다.\n"
        + "- 16시 이후 배포는 Theo 없이는 하지 않습니다.\n\n"
        + f"이번 주 목표: 가입 매장 {rng.randint(6, 12) * 50}곳, 활성화율 {rng.randint(40, 55)}%, 기사 {rng.randint(3, 9)}건, 설명회 신청 {rng.randint(10, 25) * 10}명."
    )
    return instruction, _more(rng, "출시 주간 계획", reply)


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
    _launch_week,
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
