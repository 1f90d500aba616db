# ruff: noqa: E501
"""The English transcript's templates for running the launch: weekly numbers,
competitors, the webinar, interviews, syncs, A/B tests, outreach, spend and launch week."""

import random

from bench.transcripts.common import money, pick, sample
from bench.transcripts.launch_en_data import (
    AB_ELEMENTS,
    CITIES,
    CLINICS,
    CLOSING,
    COMPARE_ROWS,
    COMPETITORS,
    INTERVIEW_NOTES,
    METRIC_ACTIONS,
    OFFERS,
    ORGS,
    OWNERS,
    SEGMENTS,
    SPEND_LINES,
    SYNC_DECISIONS,
    SYNC_TOPICS,
    THEME_TEXT,
    WEBINAR_TOPICS,
    WEEKDAYS,
)
from bench.transcripts.launch_en_writing import _first
from bench.transcripts.templates import closing


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
    return instruction, closing(rng, f"the {rival} comparison", reply, CLOSING)


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
    return instruction, closing(rng, "the session", reply, CLOSING)


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
    return instruction, closing(rng, "the interview themes", reply, CLOSING)


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
    return instruction, closing(rng, "the sync", reply, CLOSING)


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
    return instruction, closing(rng, "the test", reply, CLOSING)


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
    return instruction, closing(rng, "the partnership", reply, CLOSING)


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
    return instruction, closing(rng, "the spend report", reply, CLOSING)
