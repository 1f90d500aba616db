# ruff: noqa: E501
"""English transcript: the founder of Tidewell (booking, reminders and treatment notes for
physiotherapy clinics) and Mara, the marketing lead, in their 1:1 channel, over ten weeks
of launch planning."""

import random
from datetime import date

from bench.transcripts.common import Spec, Template, money, pick, sample
from bench.transcripts.launch_en_data import (
    AB_ELEMENTS,
    AD_COPY,
    ANGLES,
    BLOG_TITLES,
    CASE_QUOTES,
    CHECKLIST,
    CITIES,
    CLINICS,
    CLOSING,
    COMPARE_ROWS,
    COMPETITORS,
    EMAIL_QUOTES,
    EMAIL_STEPS,
    FACTS,
    FAQ,
    FEATURES,
    HEADLINES,
    INTERVIEW_NOTES,
    METRIC_ACTIONS,
    OFFERS,
    ORGS,
    OWNERS,
    PLANTED,
    QUICK,
    SECTIONS,
    SEGMENTS,
    SIGNOFFS,
    SPEND_LINES,
    SUPPORT_CASES,
    SYNC_DECISIONS,
    SYNC_TOPICS,
    THEME_TEXT,
    THEMES,
    VIDEO_BEATS,
    WEBINAR_TOPICS,
    WEEK_PLAN,
    WEEKDAYS,
)
from bench.transcripts.templates import checklist, closing, faq, quick


def _more(rng: random.Random, subject: str, reply: str) -> str:
    return closing(rng, subject, reply, CLOSING)


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
    return instruction, _more(rng, "these posts", reply)


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
    return instruction, _more(rng, f"the day-{day} email", reply)


def _metrics(rng: random.Random, seq: int, state: dict[str, object]) -> tuple[str, str]:
    week = int(str(state.get("week", 5))) + 1
    prev = state.get("metrics")
    visits = (
        int(prev[0] * rng.uniform(1.02, 1.18))
        if isinstance(prev, tuple)
        else rng.randint(2800, 3600)
    )
    signups = max(int(visits * rng.uniform(0.028, 0.046)), 20)
    activated = int(signups * rng.uniform(0.42, 0.63))
    paid = int(activated * rng.uniform(0.12, 0.25))
    spend = rng.randint(18, 46) * 50
    state["week"], state["metrics"] = week, (visits, signups, activated, paid, spend)
    instruction = pick(
        rng,
        [
            f"Numbers for week {week}: {visits:,} site visits, {signups} trial signups, {activated} activated (booked at least one real appointment), {paid} converted to paid. Paid search spend was {money(spend)}. What do you read from this and what should we change next week?",
            f"Week {week} is in: {visits:,} visits, {signups} trials, {activated} activated, {paid} paid, {money(spend)} on search. Your read?",
        ],
    )
    signup_rate = signups / visits * 100
    activation = activated / signups * 100
    lines = [
        f"Week {week} in one line: signup rate {signup_rate:.1f}%, activation {activation:.0f}%, cost per trial {money(round(spend / signups))}, cost per activated trial {money(round(spend / max(activated, 1)))}.",
        "",
    ]
    if isinstance(prev, tuple):
        lines.append(
            f"Against week {week - 1}: visits {(visits - prev[0]) / prev[0] * 100:+.0f}%, signups {(signups - prev[1]) / max(prev[1], 1) * 100:+.0f}%, "
            f"activated {(activated - prev[2]) / max(prev[2], 1) * 100:+.0f}%, paid {paid - prev[3]:+d}, spend {(spend - prev[4]) / max(prev[4], 1) * 100:+.0f}%."
        )
    source = pick(
        rng,
        [
            "paid search",
            "LinkedIn",
            "the newsletter",
            "organic search",
            "referrals from beta clinics",
            "the association newsletter",
        ],
    )
    device = rng.randint(55, 72)
    lines += [
        "",
        "What I read",
        f"- Most of the new visits came from {source}; its visitors sign up at about the site average, so the growth is real, not just clicks.",
        f"- Activation at {activation:.0f}% is the number to watch. Trials that don't book a real appointment in their first week almost never convert.",
        f"- {paid} paid out of {activated} activated is in line with the beta; I wouldn't read much into one week's paid number at this volume.",
        f"- {device}% of signups were on a phone, but most activations happen on a desktop the next day — the day-1 email matters more than the signup page.",
    ]
    if rng.random() < 0.5:
        lines.append(
            f"- One oddity: a spike on {pick(rng, WEEKDAYS)} from a forum thread about clinic software; it brought visits but almost no signups, so I've excluded it from the trend."
        )
    lines += ["", "What I'd change next week"]
    lines += [
        f"{i}. {a}" for i, a in enumerate(sample(rng, METRIC_ACTIONS, rng.randint(2, 4)), start=1)
    ]
    lines += [
        "",
        f"I'll report the effect next Friday, with the same numbers side by side for weeks {week - 1} to {week + 1}.",
    ]
    return instruction, "\n".join(lines)


def _competitor(rng: random.Random, seq: int, state: dict[str, object]) -> tuple[str, str]:
    rival = pick(rng, COMPETITORS)
    price = rng.randint(35, 79)
    team = rng.randint(4, 9)
    instruction = pick(
        rng,
        [
            f"A beta clinic asked how we compare with {rival}. Put together a short, fair comparison we could use in the sales FAQ.",
            f"Sales question keeps coming up: 'why not {rival}?' Give me a comparison I can send, and a one-line answer for calls.",
            f"{pick(rng, OWNERS)} from {pick(rng, CLINICS)} is choosing between us and {rival}. What do I tell them?",
        ],
    )
    rows = [
        (
            "Pricing",
            f"{rival} charges {money(price)} per practitioner per month, so a {team}-therapist clinic pays {money(price * team)}; we charge one price per clinic.",
        )
    ]
    rows += [(n, t.format(rival=rival)) for n, t in sample(rng, COMPARE_ROWS, rng.randint(3, 6))]
    strengths = sample(
        rng,
        [
            "it has been around longer",
            "it has more integrations with accounting tools",
            "some larger clinics already know it",
            "its reporting is more detailed",
            "it has a therapist mobile app",
        ],
        2,
    )
    reply = (
        f"Comparison: Tidewell and {rival} (fair version — only what we can check on their public site)\n\n"
        + "\n".join(f"- {name}: {text}" for name, text in rows)
        + f"\n\nWhere {rival} is stronger: {strengths[0]}, and {strengths[1]}. We shouldn't pretend otherwise; clinic owners talk to each other.\n\n"
        f"One-liner for calls: \"If you're a clinic of several therapists who wants booking, reminders and notes in one place at one price, we're built for you; if you mainly need {pick(rng, ['accounting integrations', 'detailed reporting', 'a therapist app'])}, {rival} may suit you better today.\"\n\n"
        "I'd keep competitor names out of public ads and pages (and this goes past legal before it's used in writing). For calls, it's fine. "
        f"I'll log every time a prospect mentions them; so far {rival} has come up in {rng.randint(3, 14)} of our sales conversations."
    )
    return instruction, _more(rng, f"the {rival} comparison", reply)


def _webinar_ops(rng: random.Random, seq: int, state: dict[str, object]) -> tuple[str, str]:
    topic = pick(rng, WEBINAR_TOPICS)
    owner, clinic = pick(rng, OWNERS), pick(rng, CLINICS)
    minutes = pick(rng, [30, 40, 45])
    goal = rng.randint(12, 30) * 10
    instruction = pick(
        rng,
        [
            f"Plan a customer session on {topic} for after the launch. {owner} from {clinic} could co-host.",
            f"Give me a run of show for a {minutes}-minute session on {topic}, with {owner} ({clinic}) as the clinic voice.",
            f"{_first(owner)} from {clinic} offered to do a session on {topic}. Put a plan together.",
        ],
    )
    segments = sample(rng, SEGMENTS, rng.randint(3, 5))
    slot = (minutes - 12) // len(segments)
    show = ["00:00 Welcome, what people will leave with"]
    t = 3
    for s in segments:
        show.append(f"{t:02d}:00 {s.format(first=_first(owner))}")
        t += slot
    show.append(f"{t:02d}:00 Questions (collected in the chat from the start, moderated by me)")
    show.append(f"{minutes - 2:02d}:00 One next step and where the recording will be")
    promo = sample(
        rng,
        [
            "Three weeks out: announce to trials and the newsletter, post from the founder account",
            "Two weeks out: a short clip of the clinic owner explaining the problem in their words",
            "One week out: reminder to registrants and a second push to trials",
            "Day before and one hour before: reminders by email",
            "Ask the co-host to share it with their own network and local clinic groups",
            "Afterwards: recording to everyone who registered, cut into three short clips",
        ],
        rng.randint(3, 5),
    )
    reply = (
        f"Session: {topic} — with {owner}, {clinic} ({minutes} minutes)\n\nRun of show\n"
        + "\n".join(show)
        + "\n\nPromotion\n"
        + "\n".join(f"- {p}" for p in promo)
        + f"\n\nTarget: {goal} registrations, {rng.randint(30, 40)}–{rng.randint(42, 50)}% live attendance, and trials started within a week by attendees who weren't already trialling.\n\n"
        f"Prep: a {pick(rng, [20, 30])}-minute rehearsal with {_first(owner)} two days before; slides in the new template; slides and email copy to legal a week ahead. "
        f"{pick(rng, ['We record locally as a backup in case the platform recording fails.', 'Theo joins as a silent panellist to answer technical questions in the chat.', 'I will send the co-host a thank-you and the recording within a day.'])}"
    )
    return instruction, _more(rng, "the session", reply)


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
    return instruction, _more(rng, f"the {section} section", reply)


def _interviews(rng: random.Random, seq: int, state: dict[str, object]) -> tuple[str, str]:
    n = rng.randint(3, 6)
    people, clinics, cities = (
        sample(rng, OWNERS, n),
        sample(rng, CLINICS, n),
        sample(rng, CITIES, n),
    )
    notes = sample(rng, INTERVIEW_NOTES, n)
    listed = "\n".join(
        f"- {p} ({c}, {city}): {note}"
        for p, c, city, (note, _) in zip(people, clinics, cities, notes, strict=True)
    )
    instruction = f"I had calls with {n} beta clinics this week. Short notes below — can you pull out the themes and what they mean for launch messaging?\n{listed}"
    themes = [THEME_TEXT[t] for _, t in notes]
    reply = (
        "Themes from this week's calls\n\n"
        + "\n".join(f"{i}. {t}" for i, t in enumerate(themes, start=1))
        + "\n\nWhat it means for messaging\n"
        + "\n".join(
            f"- {m}"
            for m in sample(
                rng,
                [
                    'Lead with "your patient history comes with you" in anything about switching.',
                    'Write at least one asset for the receptionist, not the owner: a one-page "your first Monday" guide.',
                    "Add a 'what's included' line directly under each plan name.",
                    "Show a tablet at reception in the hero image instead of a laptop.",
                    "Put one sentence on reminder settings in the FAQ.",
                    'Use the phrase "no app for your patients" — it came up unprompted twice.',
                ],
                3,
            )
        )
        + "\n\nFollow-ups\n"
        + "\n".join(
            f"- {_first(p)}: ask if we may quote them (written OK), and send the relevant help article."
            for p in people[:3]
        )
        + f"\n\nI'll add these to the interview log; we're at {rng.randint(21, 38)} calls in total, enough to count themes rather than quote single calls."
    )
    return instruction, _more(rng, "the interview themes", reply)


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
    return instruction, _more(rng, f"the {platform} campaign", reply)


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
    return instruction, _more(rng, "the post", reply)


def _sync(rng: random.Random, seq: int, state: dict[str, object]) -> tuple[str, str]:
    topic = pick(rng, SYNC_TOPICS)
    day = pick(rng, WEEKDAYS)
    instruction = f"Prepare the agenda for {day}'s sync with Theo and Iris on {topic}. 30 minutes, and I want decisions, not a status round."
    decisions = sample(rng, SYNC_DECISIONS, rng.randint(3, 4))
    reply = (
        f"Agenda — {topic} ({day}, 30 min)\n\nPre-read (sent today): one page with the current state, screenshots, and last month's numbers.\n\n"
        "1. Context (3 min) — where we are, in numbers\n"
        + "\n".join(
            f"{i}. Decision: {d} ({rng.randint(5, 8)} min)"
            for i, d in enumerate(decisions, start=2)
        )
        + f"\n{len(decisions) + 2}. Owners and dates (4 min)\n\n"
        "My proposals, so we can disagree fast\n"
        + "\n".join(
            f"- {d}: {pick(rng, ['Theo proposes, Iris reviews, I write the text', 'before launch if it is under two days of work', 'keep it to what we can measure in week one', 'yes, with a short note explaining what changed', 'Theo until 20:00, me for messages, you for decisions'])}"
            for d in decisions
        )
        + "\n\nOut of scope: visual redesign of the app, pricing. If they come up I'll park them in the notes, and I'll send the notes with owners within the hour."
    )
    return instruction, _more(rng, "the sync", reply)


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
    return instruction, _more(rng, "the case study", reply)


def _ab_test(rng: random.Random, seq: int, state: dict[str, object]) -> tuple[str, str]:
    element, variants = AB_ELEMENTS[rng.randrange(len(AB_ELEMENTS))]
    base, lift = rng.randint(3, 9), rng.randint(15, 30)
    per_arm = rng.randint(18, 45) * 100
    weekly = rng.randint(2500, 4000)
    instruction = (
        f"Design an A/B test for {element}. How long will it take to get an answer we can trust?"
    )
    reply = (
        f"A/B test — {element}\n\n"
        f"Hypothesis: a clearer version of {element} raises trial starts, because visitors know what happens after they click.\n"
        f"Variants: {variants} — one change only, so we know what caused the difference.\n"
        f"Primary metric: trial start rate (currently about {base}%). Guardrail: activation of those trials must not drop.\n\n"
        f"Sample size: to detect a {lift}% relative lift at 95% confidence and 80% power we need roughly {per_arm:,} visitors per variant. "
        f"At about {weekly:,} visitors a week that's {max(round(per_arm * 2 / weekly), 1)} weeks, so it has to start {pick(rng, ['this week', 'by Monday', 'before the webinar push'])} to finish before launch.\n\n"
        "Decision rule, written before we start: ship B if it wins on the primary metric and the guardrail holds; otherwise keep A and note the result. No peeking and stopping early.\n\n"
        "Set-up: Theo adds the flag; I check tracking on both variants before traffic is split. Copy for B goes to legal first."
    )
    return instruction, _more(rng, "the test", reply)


def _outreach(rng: random.Random, seq: int, state: dict[str, object]) -> tuple[str, str]:
    org, contact, offer = pick(rng, ORGS), pick(rng, OWNERS), pick(rng, OFFERS)
    instruction = (
        f"Draft an outreach email to {contact} at {org} about a partnership around the launch."
    )
    reply = (
        f"Subject: {pick(rng, ['An idea for your members', 'Something useful for clinic owners', 'A small collaboration idea'])}\n\n"
        f"Hi {_first(contact)},\n\n"
        "I'm Mara, marketing lead at Tidewell — we make booking, reminders and notes software for independent physio clinics, and we've been in beta with clinics across the UK.\n\n"
        f"I'd like to suggest {offer}. The idea is to give your audience something useful about the admin side of running a clinic, which we hear about constantly and which rarely gets airtime.\n\n"
        "What we'd bring: the content, a clinic owner who can speak from experience, and all the logistics. What we'd ask: a slot and your honest feedback on whether it lands.\n\n"
        f"Would a 20-minute call {pick(rng, ['next week', 'on Thursday or Friday', 'before the end of the month'])} work?\n\nBest,\nMara\n\n"
        f"Follow-up plan: one nudge after {rng.randint(5, 8)} days, then leave it. Measure: replies, then sign-ups with the partner's code. "
        "The offer terms go past legal before I send."
    )
    return instruction, _more(rng, "the partnership", reply)


def _spend(rng: random.Random, seq: int, state: dict[str, object]) -> tuple[str, str]:
    spent = {line: rng.randint(4, 45) * 50 for line in SPEND_LINES}
    total = sum(spent.values())
    instruction = pick(
        rng,
        [
            "How much of the launch budget have we spent so far, by line? Anything I should worry about?",
            "Finance wants a spend update by channel. Can you put one together?",
        ],
    )
    reply = (
        "Spend to date, by line\n"
        + "\n".join(f"- {line}: {money(v)}" for line, v in spent.items())
        + f"\nTotal so far: {money(total)}\n\n"
        f"Pace: {pick(rng, ['slightly under plan — search is cheaper per click than we budgeted', 'on plan', 'ahead of plan on LinkedIn, behind on search'])}. "
        f"The biggest single cost this month was {pick(rng, ['the PR retainer', 'search', 'the video edit', 'printing for the meetup'])}.\n\n"
        "What I'd watch\n"
        f"- LinkedIn cost per activated trial is {money(rng.randint(60, 140))}, about {rng.randint(2, 4)}× search. I'll keep it to retargeting unless it improves.\n"
        "- The reserve is untouched; I'd keep it until launch week.\n"
        f"- Two invoices are outstanding ({pick(rng, ['agency', 'printer', 'video editor'])} and {pick(rng, ['webinar platform', 'stock photos', 'the meetup venue'])}); they're in the numbers as committed.\n\n"
        "I've put the same table in the finance sheet, with receipts linked."
    )
    return instruction, _more(rng, "the spend report", reply)


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
    return instruction, _more(rng, "the macros", reply)


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
    return instruction, _more(rng, "the video", reply)


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
    return instruction, _more(rng, piece, reply)


def _launch_week(rng: random.Random, seq: int, state: dict[str, object]) -> tuple[str, str]:
    instruction = pick(
        rng,
        [
            "Write out launch week day by day, hour by hour where it matters, with owners. I want to print it and pin it on the wall.",
            "Can you redo the launch-week plan with everything we've changed since the last version? Day by day, owners on every line.",
        ],
    )
    days = []
    for day, items in WEEK_PLAN.items():
        kept = [items[0], *sample(rng, items[1:], max(len(items) - 1 - rng.randint(0, 1), 1))]
        kept.sort()
        days.append(day + "\n" + "\n".join(f"- {i}" for i in kept))
    reply = (
        "Launch week — the wall version\n\n"
        + "\n\n".join(days)
        + "\n\nRules for the week\n"
        + "- One channel for launch chatter (our launch channel); decisions go in the decisions doc.\n"
        + "- Anything public still goes through legal; approved spares are in the shared folder for quick swaps.\n"
        + f"- If signups stall below {rng.randint(40, 90)} by noon on launch day, we call a 15-minute huddle, not a meeting.\n"
        + "- Nobody deploys after 16:00 without Theo.\n\n"
        + f"Targets for the week: {rng.randint(6, 12) * 50} trials, {rng.randint(35, 50)}% activated, {rng.randint(3, 9)} press pieces, a top-five finish on Product Hunt."
    )
    return instruction, _more(rng, "launch week", reply)


TEMPLATES: list[Template] = [
    _linkedin,
    _nurture_email,
    _metrics,
    _competitor,
    _webinar_ops,
    _landing,
    _interviews,
    _ads,
    _blog,
    _sync,
    faq(FAQ, CLOSING),
    _case_study,
    checklist(CHECKLIST, CLOSING),
    _ab_test,
    _outreach,
    _spend,
    _support_macros,
    _video,
    _press_review,
    _launch_week,
    quick(QUICK),
]

SPEC = Spec(
    name="launch_en",
    language="en",
    channel_kind="dm",
    employee="Mara",
    description="1:1 channel with Mara (marketing lead): ten weeks of launch planning for Tidewell, clinic software for physiotherapy practices.",
    seed=20250203,
    tz="Europe/London",
    start=date(2025, 2, 3),
    workdays=48,
    planted=PLANTED,
    facts=FACTS,
    templates=TEMPLATES,
    holidays=(date(2025, 4, 18), date(2025, 4, 21)),  # Easter
)
