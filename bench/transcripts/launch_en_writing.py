# ruff: noqa: E501
"""The English transcript's templates for what Mara writes: posts, e-mails, landing
page, ads, blog, case studies, the launch video, press reviews and support macros."""

import random

from bench.transcripts.common import money, pick, sample
from bench.transcripts.launch_en_data import (
    AD_COPY,
    ANGLES,
    BLOG_TITLES,
    CASE_QUOTES,
    CITIES,
    CLINICS,
    CLOSING,
    COMPETITORS,
    EMAIL_QUOTES,
    EMAIL_STEPS,
    FEATURES,
    HEADLINES,
    OWNERS,
    SECTIONS,
    SIGNOFFS,
    SUPPORT_CASES,
    THEMES,
    VIDEO_BEATS,
    WEEKDAYS,
)
from bench.transcripts.templates import closing


def _first(name: str) -> str:
    return name.split()[0]


def _linkedin(rng: random.Random, seq: int, state: dict[str, object]) -> tuple[str, str]:
    theme = pick(rng, list(THEMES))
    content = THEMES[theme]
    n = rng.randint(2, 4)
    instruction = pick(
        rng,
        [
            f"Can you draft {n} LinkedIn posts for my account on {theme}? Keep each under 1,200 characters and end with a question.",
            f"I want to post about {theme} next week. Give me {n} options in different styles, short enough to read on a phone.",
            f"Draft {n} founder posts on {theme} for LinkedIn — practical, no hype, and nothing that sounds like an ad.",
            f"Engagement on my last posts was flat. Try {n} new drafts on {theme}, more personal this time.",
        ],
    )
    posts = []
    for i, angle in enumerate(sample(rng, ANGLES, n), start=1):
        hook = pick(rng, content["hooks"])
        points = sample(rng, content["points"], rng.randint(2, 4))
        clinic, city, owner = pick(rng, CLINICS), pick(rng, CITIES), pick(rng, OWNERS)
        if "story" in angle:
            body = (
                f"Last month I sat in the back office at {clinic} in {city} while {_first(owner)} ran the morning. "
                + " ".join(points)
            )
        elif "number" in angle:
            body = (
                f"Across our beta, clinics that changed just one habit saw {rng.randint(18, 41)}% fewer gaps within six weeks. "
                + " ".join(points)
            )
        elif "how-to" in angle:
            body = "What works, in order:\n" + "\n".join(
                f"{k}. {p}" for k, p in enumerate(points, start=1)
            )
        elif "contrarian" in angle:
            body = (
                "Unpopular opinion: buying more software won't fix this on its own. "
                + " ".join(points)
                + " The tool matters less than the habit it makes easy."
            )
        elif "behind" in angle:
            body = (
                f"This week Theo and I watched recordings of {rng.randint(4, 9)} clinics using the diary. "
                + " ".join(points)
            )
        else:
            body = " ".join(points)
        posts.append(f"Post {i} — {angle}\n\n{hook}\n\n{body}\n\n{pick(rng, content['questions'])}")
    reply = (
        "Here are the drafts.\n\n"
        + "\n\n---\n\n".join(posts)
        + f"\n\n---\n\nMy pick: post {rng.randint(1, n)} for {pick(rng, WEEKDAYS)} morning; it has the clearest first line. "
        f"I'd hold the others for the following weeks rather than posting back to back. {pick(rng, SIGNOFFS)} "
        f"Measure: comments and profile visits in the first 48 hours; if a post passes {rng.randint(25, 60)} comments I'll turn it into a short ad for retargeting."
    )
    return instruction, closing(rng, "these posts", reply, CLOSING)


def _nurture_email(rng: random.Random, seq: int, state: dict[str, object]) -> tuple[str, str]:
    step, topic, subject, where, benefit = EMAIL_STEPS[rng.randrange(len(EMAIL_STEPS))]
    day = rng.choice([2, 3, 5, 7, 10])
    k = rng.randint(2, 6)
    owner, clinic = pick(rng, OWNERS), pick(rng, CLINICS)
    instruction = pick(
        rng,
        [
            f"Write email {k} of the trial nurture sequence — the one that goes out on day {day} to clinics that haven't {step} yet.",
            f"The day-{day} trial email isn't working (clicks are low). Rewrite it for trials that haven't {step}. Keep it short.",
            f"We need a nudge for trials that still haven't {step} by day {day}. Draft it, and tell me whether it should come from you or from me.",
        ],
    )
    alt_subjects = [
        subject,
        f"{_first(owner)} at {clinic} did this on day one",
        f"Still setting up? Start with {topic}",
        f"The {rng.randint(2, 5)}-minute step most clinics do first",
    ]
    steps = [
        f"Open {where}.",
        "Follow the prompts — it remembers where you stopped.",
        f"Check tomorrow's diary: {benefit}.",
    ]
    reply = (
        "Subject line options\n"
        + "\n".join(f"{i}. {s}" for i, s in enumerate(sample(rng, alt_subjects, 3), start=1))
        + f"\n\nPreview text: {pick(rng, ['It takes less time than your next coffee.', 'One step, then the week gets easier.', 'Most clinics do this first.'])}\n\nBody\n\nHi {{first_name}},\n\n"
        f"Most clinics that stick with Tidewell start with {topic}. It's the step that makes the rest of the week easier: {benefit}.\n\n"
        f'{owner}, who runs {clinic}, put it like this: "{pick(rng, EMAIL_QUOTES)}"\n\n'
        "Here's how:\n"
        + "\n".join(f"{i}. {s}" for i, s in enumerate(steps, start=1))
        + "\n\n[Do it now]\n\nIf anything's unclear, reply to this email — a real person reads it.\n\n"
        + pick(rng, ["The Tidewell team", "Mara, for the Tidewell team", "[Founder], Tidewell"])
        + f"\n\nNotes\n- Sent on day {day} only to trials without the event, so nobody gets told to do what they've done.\n"
        f"- One button, one task; I removed the feature list that was in the old version.\n"
        f"- Sender: {pick(rng, ['from you — founder emails get more replies at this stage', 'from me — it is a how-to, and replies come to the person who can help'])}.\n"
        f"- Measure: click rate and the share who complete the step within 48 hours. Old version: {rng.randint(2, 5)}.{rng.randint(0, 9)}% clicks; I'd call {rng.randint(6, 9)}% a win.\n"
        "- Goes to legal with the next bundle (the quote needs the clinic's written OK too)."
    )
    return instruction, closing(rng, f"the day-{day} email", reply, CLOSING)


def _landing(rng: random.Random, seq: int, state: dict[str, object]) -> tuple[str, str]:
    section, problem = SECTIONS[rng.randrange(len(SECTIONS))]
    feats = sample(rng, FEATURES, rng.randint(3, 5))
    instruction = pick(
        rng,
        [
            f"Rewrite the {section} section of the landing page; right now it feels {problem}.",
            f"Iris says the {section} section reads {problem}. Can you give me new copy and say why it's better?",
        ],
    )
    reply = (
        f"{section.capitalize()} section — rewrite\n\nHeadline options\n"
        + "\n".join(f"{i}. {h}" for i, h in enumerate(sample(rng, HEADLINES, 3), start=1))
        + f"\n\nSubhead: {pick(rng, ['Tidewell brings your diary, reminders, notes and invoices together, so the clinic runs on one system instead of five.', 'Everything the desk and the therapists need, in the browser, from the first day.', 'Made with clinics from our beta, for owners who still treat patients.'])}\n\n"
        "Points under it\n"
        + "\n".join(
            f"- {f[0].upper() + f[1:]}: {pick(rng, ['set up in minutes', 'works from any device', 'no training needed for the desk', 'included in every plan', 'designed with beta clinics', 'your patients need no app'])}."
            for f in feats
        )
        + f"\n\nButton: {pick(rng, ['Start free', 'Try it free', 'Start your free plan'])} (secondary link: {pick(rng, ['See how it works', 'Watch a 2-minute tour', 'Talk to us'])})\n\n"
        f"Why it's better: the old version described features; this one describes the week a clinic owner wants. One idea per line, because {rng.randint(58, 74)}% of visitors are on phones. "
        f"Test: headline 1 against 2 for two weeks, measured on trial starts, not scroll depth. Copy goes to legal before it ships."
    )
    return instruction, closing(rng, f"the {section} section", reply, CLOSING)


def _ads(rng: random.Random, seq: int, state: dict[str, object]) -> tuple[str, str]:
    platform = pick(rng, ["Google search", "LinkedIn", "Meta retargeting"])
    monthly = rng.randint(8, 30) * 100
    instruction = pick(
        rng,
        [
            f"Set up the structure for the {platform} campaign — {money(monthly)} a month to start. Campaigns, groups, copy, and what we measure.",
            f"The {platform} campaign needs a rethink before launch. Propose a new structure at {money(monthly)} a month.",
        ],
    )
    if platform == "Google search":
        groups = [
            (
                "Physio software",
                ["physio software", "physiotherapy practice software", "physio clinic system"],
            ),
            (
                "Booking",
                [
                    "physio booking system",
                    "online booking for physio",
                    "clinic appointment software",
                ],
            ),
            (
                "Notes",
                ["physio notes software", "treatment notes template physio", "SOAP notes physio"],
            ),
            (
                "Switching",
                [
                    "alternative to " + pick(rng, COMPETITORS).lower(),
                    "change clinic software",
                    "migrate physio software",
                ],
            ),
            ("Invoicing", ["physio invoicing software", "insurance billing physiotherapy"]),
        ]
        body = "\n".join(
            f"- Ad group '{g}': " + ", ".join(f'"{k}"' for k in kws)
            for g, kws in sample(rng, groups, rng.randint(3, 5))
        )
        extra = f"Negative keywords: jobs, course, degree, salary, free template, NHS{pick(rng, ['', ', student', ', CPD'])}.\nMatch types: phrase and exact only for the first month."
    elif platform == "LinkedIn":
        body = (
            f"- Audience A: owners and directors of physiotherapy practices, 1–50 employees, {pick(rng, ['UK and Ireland', 'UK only'])}\n"
            "- Audience B: practice managers in the same companies\n"
            f"- Audience C: website visitors in the last {pick(rng, [30, 60, 90])} days (retargeting)"
        )
        extra = f"Formats: single image for A and B, {pick(rng, ['a document ad (the audience brief turned into a 5-page guide)', 'a short video clip from the webinar', 'a conversation ad offering a setup call'])} for C."
    else:
        body = (
            f"- Audience: site visitors who viewed pricing but didn't start a trial ({pick(rng, [14, 30])} days)\n"
            "- Audience: trials that didn't activate within 7 days (excluding paid customers)\n"
            f"- Frequency cap: {pick(rng, [2, 3, 4])} a week"
        )
        extra = "Creative: one clip from the webinar, one quote card from a beta clinic, one plain 'Start free' card."
    copy = sample(rng, AD_COPY, 2)
    reply = (
        f"{platform} — structure for {money(monthly)} a month\n\n{body}\n\n{extra}\n\n"
        f'Ad copy (two variants per group)\nA: "{copy[0]}"\nB: "{copy[1]}"\n\n'
        f"Budget: {rng.randint(55, 75)}% to the best-performing group after week one, the rest spread evenly while we learn.\n\n"
        f"What we measure: cost per trial and cost per activated trial (the second matters more). Kill rule: any group above {money(rng.randint(40, 90))} per activated trial after 30 trials is paused.\n\n"
        "All variants go to legal before launch; I'll keep two approved spares per group so we can swap without waiting."
    )
    return instruction, closing(rng, f"the {platform} campaign", reply, CLOSING)


def _blog(rng: random.Random, seq: int, state: dict[str, object]) -> tuple[str, str]:
    title, keyword, theme = pick(rng, BLOG_TITLES)
    points = sample(rng, THEMES[theme]["points"], rng.randint(3, 5))
    words = rng.randint(12, 20) * 100
    instruction = pick(
        rng,
        [
            f"Outline a blog post: '{title}'. Target keyword and internal links too.",
            f"Next blog post is '{title}'. Give me an outline I can hand to the freelance writer.",
        ],
    )
    reply = (
        f"Outline — {title}\n\nTarget keyword: {keyword}\nLength: about {words:,} words\nReader: a clinic owner who found us through search and doesn't know Tidewell yet.\n\n"
        "Intro (100 words): the problem in the reader's words, one number, a promise of what they'll leave with.\n\n"
        + "\n\n".join(
            f"Section {i}: {p}\n- Why it matters, with one example from a clinic\n- One practical step they can take this week"
            for i, p in enumerate(points, start=1)
        )
        + "\n\nClosing: a checklist they can screenshot; a soft link to the free Starter plan, not a hard sell.\n\n"
        "Internal links: the pricing page, the relevant help article, the case study if it fits.\n\n"
        f"Brief for the writer: British spelling, no medical claims, quotes only from clinics who've agreed in writing; draft due {pick(rng, WEEKDAYS)} week. "
        f"Measure: organic entrances after 60 days and trials started from the post. I'd share it in the newsletter the week after it's published."
    )
    return instruction, closing(rng, "the post", reply, CLOSING)


def _case_study(rng: random.Random, seq: int, state: dict[str, object]) -> tuple[str, str]:
    owner, clinic, city = pick(rng, OWNERS), pick(rng, CLINICS), pick(rng, CITIES)
    therapists = rng.randint(4, 12)
    before, after = rng.randint(9, 16), rng.randint(3, 7)
    hours = rng.randint(4, 11)
    specialty = pick(
        rng,
        [
            "sports injuries and post-surgery rehab",
            "back and neck pain, mostly self-pay",
            "a mix of insurer patients and Pilates classes",
            "running injuries and a busy Saturday clinic",
        ],
    )
    instruction = (
        f"Draft a case study from the call with {owner} at {clinic} in {city}: {therapists} therapists, "
        f"no-shows went from {before}% to {after}% in three months, the desk saves about {hours} hours a week."
    )
    reply = (
        f"Title: How {clinic} cut no-shows from {before}% to {after}% in three months\n\n"
        f"The clinic: {clinic} in {city}, {therapists} therapists, {pick(rng, ['one receptionist', 'two part-time receptionists', 'a practice manager and one receptionist'])}, {specialty}.\n\n"
        f"The challenge: {pick(rng, ['the diary lived in an old desktop system that only worked at reception', 'bookings came by phone, email and Facebook messages, and were copied into a paper diary', 'the clinic had outgrown a shared calendar and double-booked rooms every week'])}. "
        "Reminders were sent by hand when the desk had time, and notes were written after hours. Cancellations came in by phone and empty slots stayed empty.\n\n"
        "What they changed: online booking with automatic SMS reminders the day before, a waitlist that offers freed slots by text, and note templates for their five most common presentations.\n\n"
        f"The results (three months, clinic's own numbers)\n- No-shows: {before}% → {after}%\n- Front-desk time on the phone: about {hours} hours a week less\n- Notes: written on the day, not at night\n\n"
        f'Quote: "{pick(rng, CASE_QUOTES)}" — {owner}\n\n'
        f"Next steps: send the draft to {_first(owner)} for approval of the numbers and the quote, then legal. I'll ask for a photo of the team at the desk; "
        "I'd use it in the day-10 email, on the landing page, and as a PDF for sales."
    )
    return instruction, closing(rng, "the case study", reply, CLOSING)


def _video(rng: random.Random, seq: int, state: dict[str, object]) -> tuple[str, str]:
    seconds = pick(rng, [45, 60, 90])
    beats = sample(rng, VIDEO_BEATS, rng.randint(3, 5))
    instruction = (
        f"Write a script for a {seconds}-second launch video. No voice-over if we can avoid it."
    )
    reply = (
        f"Script — {seconds} seconds, captions only\n\n"
        + "\n".join(
            f'{i * seconds // (len(beats) + 1):02d}s — {b}. Caption: "{pick(rng, ["Less phone. More patients.", "Notes done before you go home.", "Every slot filled.", "One place for the whole week.", "Built with clinics like yours."])}"'
            for i, b in enumerate(beats)
        )
        + f"\n{seconds - 8:02d}s — Logo, 'Tidewell — clinic software for physio practices', 'Start free'\n\n"
        f"Shooting: one day at {pick(rng, CLINICS)} (they've agreed in principle), real staff, no patients' faces or screens with real data — we use the demo account on every screen. "
        f"Music: licensed, calm, nothing that sounds like an advert. Cost estimate: {money(rng.randint(8, 16) * 100)} with the editor we used for the beta video.\n\n"
        "Cut-downs: a 15-second version for ads and a square version for LinkedIn. Script and final cut go to legal."
    )
    return instruction, closing(rng, "the video", reply, CLOSING)


def _press_review(rng: random.Random, seq: int, state: dict[str, object]) -> tuple[str, str]:
    piece = pick(
        rng,
        [
            "the draft press release",
            "the pitch to trade titles",
            "the founder Q&A for the press kit",
            "the fact sheet",
        ],
    )
    issues = sample(
        rng,
        [
            (
                "the first paragraph is about us, not the clinic problem",
                "Open with the admin burden on small clinics, then introduce Tidewell in the second sentence.",
            ),
            (
                "'revolutionary' and 'game-changing' appear three times",
                "Cut them; trade editors delete them anyway, and legal would flag them.",
            ),
            (
                "the beta numbers have no date",
                "Add 'as of' with the month, so nobody reads them as launch-day figures.",
            ),
            (
                "there's no quote from a clinic owner",
                "Use the approved quote from the case study; I've sent it to the agency.",
            ),
            (
                "the boilerplate is four sentences long",
                "Two sentences: what Tidewell is, who it's for, where it's based.",
            ),
            (
                "the price is buried at the end",
                "Move it to the fact box; reporters look for it first.",
            ),
            (
                "a claim implies better patient outcomes",
                "Replace with what we can show: fewer missed appointments, less admin time.",
            ),
        ],
        rng.randint(3, 5),
    )
    opening = pick(
        rng,
        [
            "Tidewell, the revolutionary clinic platform, today announced a game-changing approach to how physiotherapy practices run their day. Founded by a team passionate about healthcare, Tidewell brings booking, reminders and notes together.",
            "Small physiotherapy clinics lose hours every week to phone calls, paper forms and unpaid invoices. Tidewell, a new software platform, wants to change that with an all-in-one system built with clinics across the UK.",
            "Today Tidewell launches its clinic platform, which uses smart automation to transform patient outcomes and make practices more efficient than ever before.",
        ],
    )
    instruction = f'The agency sent {piece}. Can you review it and tell me what to push back on? It opens like this:\n\n"{opening} …"'
    reply = (
        f"Review of {piece}\n\n"
        + "\n".join(f"{i}. Problem: {p}.\n   Fix: {f}" for i, (p, f) in enumerate(issues, start=1))
        + "\n\nWhat's good: the structure, the headline length, and the embargo line at the top.\n\n"
        f"I'd send these back as tracked changes rather than a list; the agency turns tracked changes around in a day. Then it goes to legal, and we should leave {pick(rng, ['two', 'three'])} working days before the first briefing."
    )
    return instruction, closing(rng, piece, reply, CLOSING)


def _support_macros(rng: random.Random, seq: int, state: dict[str, object]) -> tuple[str, str]:
    cases = sample(rng, SUPPORT_CASES, rng.randint(3, 5))
    instruction = (
        "For launch week support: write reply macros for these cases, warm but short.\n"
        + "\n".join(f"- {c}" for c, _ in cases)
    )
    reply = (
        "Support macros — launch week\n\n"
        + "\n\n".join(
            f"Case: {c}\nReply: Hi {{first_name}}, thanks for getting in touch. {a} If that doesn't do it, reply here and we'll look at it together today.\n— {{agent_name}}, Tidewell support"
            for c, a in cases
        )
        + "\n\nNotes: every macro ends with a way back to a person; nothing promises a fix date. "
        f"I'd tag each macro use so we can see the top {len(cases)} issues on launch day, and review them at the 18:00 recap. Theo checked the steps are right."
    )
    return instruction, closing(rng, "the macros", reply, CLOSING)
