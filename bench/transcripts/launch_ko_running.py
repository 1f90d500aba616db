# ruff: noqa: E501
"""The Korean transcript's templates for running the launch: weekly numbers,
competitors, the seminar, interviews, assignments, A/B tests, outreach, spend and launch week."""

import random

from bench.transcripts.common import josa, pick, sample, won
from bench.transcripts.launch_ko_data import (
    AB_KO,
    AREAS,
    ASSIGN_TOPICS,
    CAFES,
    CLOSING,
    COMPARE_ROWS_KO,
    COMPETITORS,
    INTERVIEW_NOTES_KO,
    METRIC_ACTIONS_KO,
    OFFERS_KO,
    ORGS_KO,
    OWNERS,
    SEGMENTS_KO,
    SEMINAR_TOPICS,
    SPEND_LINES_KO,
    TASKS_KO,
    TEAM,
    THEME_TEXT_KO,
    WEEKDAYS,
)
from bench.transcripts.templates import closing


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
    return instruction, closing(rng, f"{week}주 차 개선안", "\n".join(lines), CLOSING)


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
    return instruction, closing(rng, f"{rival} 비교 자료", reply, CLOSING)


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
    return instruction, closing(rng, "설명회", reply, CLOSING)


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
    return instruction, closing(rng, "인터뷰 정리", reply, CLOSING)


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
    return instruction, closing(rng, "이번 업무", reply, CLOSING)


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
    return instruction, closing(rng, "테스트", reply, CLOSING)


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
    return instruction, closing(rng, "제휴 제안", reply, CLOSING)


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
    return instruction, closing(rng, "집행 현황", reply, CLOSING)
