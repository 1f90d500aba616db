# ruff: noqa: E501
"""English transcript: the founder of Tidewell (booking, reminders and treatment notes for
physiotherapy clinics) and Mara, the marketing lead, in their 1:1 channel, over ten weeks
of launch planning."""

import random
from datetime import date

from bench.transcripts.common import Fact, Question, Spec, Template, money, pick, sample

# --- planted missions (by hand) ---------------------------------------------------------

PLANTED: dict[int, tuple[str, str]] = {
    1: (
        "Morning Mara. We're starting launch planning for Tidewell properly today. Quick context so we're on the same page: Tidewell is booking, reminders and treatment notes in one place for physiotherapy clinics; the beta has been running since the autumn; Theo owns product, Iris owns design, you own marketing, and I make the calls on money and dates. Can you set up how we'll work in this channel: what you need from me each week, what you'll send me, and the first five things you'd do this week?",
        "Morning! Here's how I'd run it.\n\nWeekly rhythm\n- Monday: a one-screen plan for the week (what ships, what I need from you, what's blocked).\n- Friday: the numbers — site visits, trial signups, activation, paid conversions, spend — with one paragraph on what changed and why.\n- Anything that needs a decision from you I'll ask as a single question with my recommendation, so you can answer in one line.\n\nWhat I need from you\n1. Price and plan structure, so the pricing page and every piece of copy agree.\n2. Who we're talking to, in one sentence I can hand to an agency.\n3. The launch budget and the date, so I can plan backwards.\n4. A yes/no on bringing in a PR agency.\n\nFirst five things this week\n1. Pricing page draft and comparison table, as soon as pricing is settled.\n2. A one-page audience brief.\n3. A budget split across channels, with a reserve.\n4. A backwards timeline from launch day: what has to be true at T-8, T-4, T-2 and T-1 weeks.\n5. A shortlist of three PR agencies that know health tech, with day rates.\n\nHow we'll measure the launch: trial signups in the first 30 days, the share of those that book at least one real appointment in week one (activation), and paid conversion at day 30. I'll put targets next to each once we have the budget.",
    ),
    2: (
        "Pricing is settled after yesterday's call with the board. We decided the Pro plan is $29 per clinic per month, billed monthly, with two months free if they pay annually. Starter stays free for a single practitioner. Please update the pricing page copy and the comparison table, and flag anything in the current site that contradicts this.",
        'Done — here\'s the pricing page as it should read.\n\nHeadline: Simple pricing for clinics of every size\nSubhead: Start free. Upgrade when your team grows.\n\nStarter — Free\nFor a single practitioner. Online booking, SMS reminders (up to 100 a month), treatment-note templates.\n\nPro — $29 per clinic per month\nBilled monthly, or two months free on annual billing. Unlimited practitioners and rooms, unlimited reminders, waitlist fill-in, insurer invoicing, outcome-measure tracking, priority support.\n\nComparison table (rows → Starter / Pro)\n- Practitioners: 1 / unlimited\n- Online booking: yes / yes\n- SMS reminders: 100 a month / unlimited\n- Waitlist fill-in: — / yes\n- Insurer invoicing: — / yes\n- Outcome measures (PSFS, NPRS): — / yes\n- Support: email / priority, same working day\n\nThings on the current site that contradict this:\n1. The FAQ still says "pricing per practitioner" — needs to say per clinic.\n2. The beta welcome email mentions a "founding member discount" with no end date; we should either honour it with a date or drop it.\n3. The footer links to an old pricing PDF.\n\nI\'d measure the page on the click-through from pricing to trial start; the current page converts around 6%, and a cleaner two-plan layout usually lifts that.',
    ),
    3: (
        "Let's pin down who we are talking to. Our target customer is independent physiotherapy clinics with 3 to 15 therapists — owner-led, usually one or two people on the front desk, often also doing sports massage or Pilates. Not hospital outpatient departments, not solo practitioners (they're fine on Starter but we don't market to them). Write me a one-page audience brief we can hand to the agency.",
        "Audience brief — Tidewell launch\n\nWho: independent physiotherapy clinics with 3 to 15 therapists. Owner-led; the owner still treats patients two or three days a week. One or two front-desk staff. Many add sports massage, Pilates or acupuncture as extra income.\n\nWho not: hospital and NHS outpatient departments (different buyers, procurement cycles), solo practitioners (welcome on Starter, but not the audience for paid campaigns), large chains with central IT.\n\nTheir week: the owner spends evenings on notes and invoices; the front desk spends mornings phoning patients to confirm and to fill cancellations. Software they use today is usually a mix of an old desktop booking system, paper intake forms and spreadsheets for invoicing insurers.\n\nWhat they want: fewer empty slots, notes done before they go home, getting paid by insurers without chasing.\n\nWhat they fear: a migration that loses patient history, staff refusing a new system, anything that looks risky for patient data.\n\nWhere they are: physio association newsletters and events, Facebook groups for clinic owners, LinkedIn (owners, not staff), local business networks. They trust other clinic owners far more than vendors.\n\nTone: practical, peer to peer, no hype, no medical claims.\n\nProof they need: a clinic like theirs, named, with a number (hours saved, no-shows down), and a migration story that went fine.",
    ),
    4: (
        "Budget is confirmed: the launch marketing budget is $18,500 for everything from now until the end of May — ads, the PR retainer, the webinar, swag, the lot. Draft a split across channels with a reserve, and tell me what you'd cut first if we need to.",
        "Here's the split of the $18,500 launch marketing budget (now → end of May):\n\n- Paid search (Google, high-intent terms like \"physio booking software\"): $6,000\n- LinkedIn ads to clinic owners: $3,500\n- PR agency retainer (two months plus the launch push): $4,500\n- Webinar and content (speaker gift, editing, a short video): $2,000\n- Events and swag (one association meetup, printed cards for beta clinics): $1,500\n- Reserve for what works: $1,000\n\nWhy this shape: search catches clinics already looking; LinkedIn reaches owners who aren't looking yet but is expensive per click, so it gets less; PR is the one channel that gives us third-party credibility before launch, which this audience weighs heavily.\n\nWhat I'd cut first, in order:\n1. Events and swag — nice, least measurable.\n2. Half of LinkedIn — keep the retargeting, drop cold audiences.\n3. The video — the webinar recording can do the same job.\n\nI wouldn't cut search or PR. Measurement: cost per trial by channel, weekly; I'll move money from the worst to the best every Friday once a channel has 30+ trials behind it.",
    ),
    5: (
        "Date is locked with Theo: public launch is Tuesday, April 22. Product Hunt the same day, press embargo lifts at 08:00 UK time. Work backwards and give me the marketing timeline with owners.",
        "Backwards plan to the public launch on Tuesday, April 22 (embargo lifts 08:00 UK, Product Hunt the same day).\n\nT-10 weeks (now)\n- Pricing page, audience brief, budget split — Mara\n- PR agency chosen and briefed — you + Mara\n\nT-8 weeks\n- Messaging house and three proof points from beta clinics — Mara\n- Visual identity for launch assets — Iris\n- Landing page v2 live behind the waitlist — Theo + Mara\n\nT-6 weeks\n- Case studies drafted (two clinics), approved by the clinics — Mara\n- Paid search account built, not spending — Mara\n- Webinar date set and speaker confirmed — Mara\n\nT-4 weeks\n- Press kit ready, embargoed briefings start — PR agency\n- Email sequence to the list written and scheduled — Mara\n- Product Hunt page drafted, hunter lined up — Mara\n\nT-2 weeks\n- Ads approved, spending at low budget to warm up — Mara\n- Webinar promotion — Mara\n- Beta clinics asked to post on launch day — you\n\nT-1 week\n- Final checks: pricing, signup flow, support macros — Theo + Mara\n\nLaunch day\n- 08:00 embargo lifts, email to list, LinkedIn post from you, Product Hunt live\n- I watch signups hourly and post a recap at 18:00\n\nRisk: the case studies. Clinic owners are slow to approve quotes, so I'll start those first.",
    ),
    6: (
        "Iris showed me three palettes this morning. We decided the brand colour is coral (#FF6F61), with a dark navy for text and a warm off-white background. Can you write the short brand-colour note for the agency, and tell me where coral should and shouldn't appear in the launch assets?",
        "Brand-colour note for the agency\n\nPrimary: coral #FF6F61. Use it for the one thing we want people to do on a page or asset: the main button, the highlight in a chart, the underline on a key phrase.\nText: navy #1F2A44.\nBackground: warm off-white #FBF7F2.\nSupport: two greys for borders and secondary text (Iris will send the tokens).\n\nWhere coral goes\n- Primary buttons on the site and in emails\n- The logo mark\n- One accent per social graphic, never more\n- The launch-day banner\n\nWhere it doesn't\n- Large backgrounds (it tires the eye and washes out photos)\n- Body text or small labels (contrast)\n- Anything that looks like an error state; we keep red-ish tones away from alerts\n\nOpen point: Iris wants to check contrast on white before we commit the button style. I'd ask the agency to hold any final exports until she's done that.",
    ),
    7: (
        "We signed with Brightline PR yesterday. Our account lead there is Mina Park; she'll own the press list, the embargo and the briefings. Draft the intro email from me to Mina with what we need from her in the first two weeks.",
        "Subject: Tidewell x Brightline — kicking off\n\nHi Mina,\n\nGreat to be working together. A quick note on where we are and what would help most in the first two weeks.\n\nWhere we are: Tidewell is booking, reminders and treatment notes for independent physiotherapy clinics. We've had clinics in beta since the autumn and launch publicly in the spring. Mara (our marketing lead, copied) runs day-to-day marketing and will be your main contact for assets.\n\nWhat we need in the first two weeks\n1. A press list: trade (physio and allied-health titles), UK small-business and health-tech reporters, and two or three podcasts clinic owners actually listen to.\n2. Your view on the story: we think it's \"the admin tax on small clinics\", with numbers from our beta, but we'd like your honest read.\n3. An embargo plan and who gets briefed first.\n4. A list of what you need from us: founder bio, photos, customer contacts, data.\n\nWhat we can give you this week: the audience brief, the pricing, two beta clinic owners willing to talk to press, and product screenshots.\n\nCould we do 45 minutes on Thursday or Friday?\n\nBest,\n[Founder]\n\n---\nI'd also set a shared doc for the press list so we can see status per reporter; measuring PR by briefings held and pieces landed in launch week, not by reach.",
    ),
    9: (
        "Theo confirmed this morning: we decided to host the marketing site, the docs and the waitlist on Fly.io, deployed from the same repo as the app. What does that mean for the landing-page workflow — who can publish, and how fast can we ship copy changes?",
        "Here's what hosting the marketing site, docs and waitlist on Fly.io means for us day to day.\n\nHow a copy change ships\n1. Copy lives in the repo as Markdown files under /site/content.\n2. I edit in the browser (GitHub), open a pull request, and the preview deploy builds in a few minutes with its own link.\n3. Theo or Iris approves; merging deploys to production.\n\nWho can publish\n- Me: edit and open pull requests.\n- Theo and Iris: approve and merge.\n- Nobody edits production directly.\n\nHow fast\n- Small copy fixes: same day, realistically within an hour if Theo is around.\n- New pages: a day, since they need a layout from Iris.\n\nWhat I'd ask Theo for\n- A 'content' label on pull requests so he can fast-track copy-only changes.\n- Preview links posted automatically to our launch channel.\n- A rollback button I'm allowed to press on launch day.\n\nRisk: launch day. If the site gets a spike from Product Hunt and press at 08:00, we want it scaled up the night before; I'll add that to the T-1 checklist.",
    ),
    11: (
        "One standing rule from now on: always send any public copy — posts, press material, customer emails, ads — to Dana Whitfield in legal for review before it goes out. Health-adjacent claims get small companies in trouble fast. Build that step into our content workflow and tell me what it does to our timelines.",
        "Understood — legal review by Dana Whitfield is now a fixed step for anything public.\n\nUpdated content workflow\n1. Draft (Mara, or the agency for press material).\n2. Internal review for accuracy (Theo for product claims, you for company facts).\n3. Legal review — Dana Whitfield. She gets a link, the channel it's for, and the go-live date.\n4. Final edits, then scheduling.\n\nWhat counts as public copy: social posts, ads, landing pages, press releases and pitches, customer emails including onboarding, case studies, webinar slides, Product Hunt text.\n\nWhat doesn't: internal docs, replies to individual support tickets that don't make claims.\n\nEffect on timelines\n- I'll assume two working days for legal review, and batch items so Dana gets one bundle on Tuesdays and one on Thursdays rather than a trickle.\n- Launch-day copy needs to reach her by T-2 weeks.\n- Ads need approved variants in stock, so we can swap without waiting.\n\nPhrases I'll avoid even before review: \"clinically proven\", \"improves outcomes\", anything promising recovery times, and patient names or photos without written consent.\n\nI'll keep a log of what went to legal and when it came back, so we can see if review becomes the bottleneck.",
    ),
    14: (
        "Numbers from Theo: 340 clinics are in the beta right now, 212 of them active every week. Can we use that in the launch messaging? Draft three proof-point lines and say which one you'd lead with.",
        'Yes — with one caveat: we should say "in beta" or "have been using Tidewell before launch", not "customers", since most aren\'t paying yet.\n\nThree proof-point lines\n1. "340 clinics have been running their week on Tidewell before launch."\n2. "Six in ten beta clinics use Tidewell every single week." (212 of 340 is 62%.)\n3. "Built with 340 clinics, not for them." — softer, works for the founder\'s posts.\n\nWhich I\'d lead with: line 1 on the landing page and in press material — it\'s concrete and easy to check. Line 2 is stronger for sales conversations where people ask whether clinics stick with it. Line 3 is for social.\n\nWhat would make these stronger\n- The number of appointments booked through Tidewell in beta (Theo can pull it).\n- Median no-show rate before and after, for clinics that have been on it 3+ months.\n- Three named clinics willing to be quoted.\n\nAll three lines go to legal with the next bundle. I\'d track which line wins in the paid search ads as a headline test.',
    ),
    19: (
        "Change of plan on the brand colour. Iris ran the accessibility check: coral fails contrast on white for buttons and small text, and it clashes with the error states in the app. We're switching to teal (#0F9D9A) instead of coral for the brand colour, everywhere. Update the brand-colour note and list every launch asset that needs a re-export.",
        "Updated brand-colour note\n\nPrimary: teal #0F9D9A (replaces coral, which is retired — don't use it anywhere new).\nText: navy #1F2A44 (unchanged).\nBackground: warm off-white #FBF7F2 (unchanged).\nButtons: teal with white text passes AA contrast at our button size; for small text links use the darker teal #0B7573.\n\nWhere teal goes: primary buttons, the logo mark, one accent per social graphic, the launch-day banner.\nWhere it doesn't: large backgrounds, body text.\n\nAssets that need a re-export\n1. Logo files (SVG, PNG, favicon, app icon)\n2. Landing page buttons and highlights (Theo: one token change)\n3. Email template header and buttons\n4. Social templates (square, story, LinkedIn banner)\n5. Pitch deck and press kit cover\n6. Product Hunt gallery images\n7. Webinar slide template\n8. Printed cards for beta clinics — not printed yet, good timing\n\nI'll tell the agency today so nothing goes out in the old colour, and ask Iris for the new tokens file. None of this touches the launch date.",
    ),
    24: (
        "Our newsletter list is at 12,400 subscribers — mostly clinic owners from the old blog, some physio students. Plan the launch sequence to that list: how many sends, what each one says, and how we keep the students from skewing the numbers.",
        'Launch sequence to the 12,400 newsletter subscribers\n\nSegmenting first: tag subscribers whose email domain or signup source points to a university, plus anyone who clicked the student guide. Students get one launch email, not the sequence, and are excluded from conversion reporting.\n\nSends (owners and everyone else)\n1. T-14 days — "Something we\'ve been building with clinics": the story, three beta proof points, a waitlist link for early access.\n2. T-7 days — "What a week on Tidewell looks like": a short walkthrough of Monday morning at a beta clinic, with the webinar invitation.\n3. Launch day, 08:15 — "Tidewell is open": what it does, the price, the free Starter plan, one button.\n4. Launch +3 days — "Questions clinic owners asked us": migration, data, staff training; link to the FAQ and webinar recording.\n5. Launch +10 days — a case study, and an offer to book a 20-minute setup call.\n\nWhat we\'ll measure: opens are unreliable now, so I\'ll judge on clicks per send and trials attributed to the list (UTM per email). A reasonable target for a warm list like this is a 3–5% click rate and a few hundred trials across the sequence.\n\nEverything goes to legal in one bundle at T-3 weeks.',
    ),
    27: (
        "Good news: Dr. Hannah Olsen — she leads the musculoskeletal research group at Leeds and sat in on two of our advisory calls — agreed to be the guest on the launch webinar. Draft the webinar description and the invitation email.",
        "Webinar description\n\nTitle: Fewer empty slots, notes done by six: how small clinics are running their week\nGuest: Dr. Hannah Olsen, who leads a musculoskeletal research group at the University of Leeds\nWith: our founder\nLength: 45 minutes, including 15 minutes of questions\n\nWhat you'll hear\n- What the research says about why patients miss follow-up appointments, and what actually helps\n- How three clinics cut their admin time, with their numbers\n- A live look at booking, reminders and notes in Tidewell\n\nWho it's for: owners and practice managers of physiotherapy clinics.\n\nInvitation email\n\nSubject: A 45-minute session with Dr. Hannah Olsen on missed appointments\n\nHi {first_name},\n\nMissed follow-ups are one of the quietest costs in a clinic. We've asked Dr. Hannah Olsen, who studies musculoskeletal care at Leeds, to join us and talk about what actually keeps patients coming back — and we'll show how clinics in our beta handle it.\n\nIt's free, it's 45 minutes, and you can ask questions live.\n\n[Save my seat]\n\nBest,\nThe Tidewell team\n\n---\nI'll send Hannah a short brief and ask for a photo and her preferred title; the description and email go to legal with Thursday's bundle. Success measure: 300 registrations, 40% live attendance.",
    ),
    44: (
        "Heads-up from Theo: we're moving the marketing site, the docs and the waitlist off Fly.io to Hetzner instead. It's cheaper at our traffic, and the servers sit in Germany, which makes the data-residency answer simpler for UK and EU clinics. The switch is done by Friday. What changes for us on the marketing side?",
        "Not much day to day, and one useful thing for messaging.\n\nWhat stays the same\n- Copy still lives in the repo, pull requests still give preview links, Theo or Iris still approve and merge.\n- Launch-day plan: Theo will size the Hetzner servers for the spike the evening before; I've kept that on the T-1 checklist.\n\nWhat changes\n1. Preview links will have a new address pattern — I'll update the bookmark in our launch channel.\n2. The status page moves with the site; the footer link changes.\n3. The security page and the FAQ answer \"Where is our data stored?\" should now say the site and waitlist are hosted on Hetzner servers in Germany (EU). The app's own data location is Theo's to confirm — I'll ask him before we write anything.\n4. The DPA and privacy policy may need the new sub-processor — that's Dana's call, I'll send her the change.\n\nMessaging opportunity: \"hosted in the EU\" matters to clinic owners who worry about patient data. If Theo confirms the app data is there too, I'd add it to the pricing page FAQ and the sales one-pager.\n\nI'll check the waitlist form still records UTM parameters after the move — that's the only thing that would break our attribution.",
    ),
}

# --- facts and questions ----------------------------------------------------------------


def _q(reused: str, para1: str, para2: str) -> tuple[Question, ...]:
    return (
        Question("reused", reused),
        Question("paraphrased", para1),
        Question("paraphrased", para2),
    )


FACTS = [
    Fact(
        id="price",
        subject="Pro plan price",
        answer="$29",
        planted=2,
        topic=("price", "pricing", "pro plan"),
        questions=_q(
            "What is the Pro plan price per clinic per month?",
            "How much does a practice pay each month for our paid tier?",
            "What subscription fee did the board settle on?",
        ),
    ),
    Fact(
        id="target",
        subject="target customer size",
        answer="3 to 15 therapists",
        planted=3,
        topic=("target", "audience", "therapists"),
        questions=_q(
            "Our target customer is independent physiotherapy clinics with how many therapists?",
            "What size of practice are we aiming the launch at?",
            "How big, in headcount, is the typical physio business we sell to?",
        ),
    ),
    Fact(
        id="budget",
        subject="launch marketing budget",
        answer="$18,500",
        planted=4,
        topic=("budget",),
        questions=_q(
            "What is the launch marketing budget until the end of May?",
            "How much money do we have in total for promoting the launch?",
            "What's our overall spend ceiling for launch campaigns?",
        ),
    ),
    Fact(
        id="date",
        subject="public launch date",
        answer="April 22",
        planted=5,
        topic=("launch is", "launch date", "public launch"),
        questions=_q(
            "What date is the public launch locked for?",
            "Which day do we go live for everyone?",
            "When does Tidewell become generally available?",
        ),
    ),
    Fact(
        id="pr-lead",
        subject="PR agency account lead",
        answer="Mina Park",
        planted=7,
        topic=("brightline", "pr agency", "press"),
        questions=_q(
            "Who is our account lead at Brightline PR?",
            "Who's running press for us at the agency?",
            "Which person do I contact about journalists and the embargo?",
        ),
    ),
    Fact(
        id="legal-rule",
        subject="standing rule: legal review of public copy",
        answer="Dana Whitfield",
        planted=11,
        topic=("legal", "review"),
        questions=_q(
            "Who must review public copy before it goes out?",
            "Whose sign-off do I need before we publish an ad?",
            "Which lawyer checks our marketing material?",
        ),
    ),
    Fact(
        id="beta",
        subject="beta clinics",
        answer="340",
        planted=14,
        topic=("beta",),
        questions=_q(
            "How many clinics are in the beta right now?",
            "How many practices have been trying Tidewell before launch?",
            "What's the size of our pilot user base?",
        ),
    ),
    Fact(
        id="colour",
        subject="brand colour (coral reversed to teal)",
        answer="teal",
        planted=19,
        old="coral",
        old_planted=6,
        topic=("colour", "color"),
        questions=_q(
            "What is the brand colour now, after the accessibility check?",
            "Which colour should the buttons and the logo use?",
            "What primary hue do the launch visuals go out in?",
        ),
    ),
    Fact(
        id="newsletter",
        subject="newsletter subscribers",
        answer="12,400",
        planted=24,
        topic=("newsletter", "subscribers"),
        questions=_q(
            "How many subscribers are on our newsletter list?",
            "How big is the email audience we can mail at launch?",
            "How many people receive our mailings?",
        ),
    ),
    Fact(
        id="webinar-guest",
        subject="launch webinar guest",
        answer="Hannah Olsen",
        planted=27,
        topic=("webinar", "guest"),
        questions=_q(
            "Who agreed to be the guest on the launch webinar?",
            "Which expert is joining us for the online event?",
            "Who's our speaker for the launch session?",
        ),
    ),
    Fact(
        id="hosting",
        subject="hosting (Fly.io reversed to Hetzner)",
        answer="Hetzner",
        planted=44,
        old="Fly.io",
        old_planted=9,
        topic=("hosting", "host", "servers"),
        questions=_q(
            "Where are we hosting the marketing site, the docs and the waitlist now?",
            "Which provider runs our website servers?",
            "Where does the landing page live after Theo's move?",
        ),
    ),
]

# --- filler: work that looks like the rest of a launch ----------------------------------

CITIES = [
    "Leeds",
    "Bristol",
    "Manchester",
    "Glasgow",
    "Cardiff",
    "Brighton",
    "Norwich",
    "York",
    "Belfast",
    "Edinburgh",
    "Sheffield",
    "Exeter",
    "Nottingham",
    "Oxford",
    "Bath",
    "Derby",
]
CLINICS = [
    "Riverside Physio",
    "Northgate Sports Injury Clinic",
    "Ashford Physiotherapy",
    "Meadow Lane Rehab",
    "Harbour Physio & Pilates",
    "Kingsway Movement Clinic",
    "Elm Street Physio",
    "Bayview Back & Joint",
    "Greenfield MSK",
    "Castle Physio Studio",
    "Oakridge Physiotherapy",
    "Canal Side Physio",
    "Summit Sports Physio",
    "Westbrook Rehab Centre",
    "Holloway Road Physio",
    "Lakeside Physio Group",
]
OWNERS = [
    "Rachel Hughes",
    "Tom Ellery",
    "Priya Nair",
    "Gareth Lloyd",
    "Sophie Brennan",
    "Marcus Okafor",
    "Fiona Doyle",
    "James Whitaker",
    "Aisha Rahman",
    "Chris Pemberton",
    "Laura McKenzie",
    "Owen Griffiths",
    "Nadia Haddad",
    "Ben Cartwright",
    "Ellie Foster",
    "Sunil Mehta",
]
COMPETITORS = ["ClinicFlow", "PhysioDesk", "RehabHub", "Appointly"]
FEATURES = [
    "online booking",
    "SMS reminders",
    "treatment-note templates",
    "exercise-plan sharing",
    "waitlist fill-in",
    "insurer invoicing",
    "outcome-measure tracking",
    "the multi-room calendar",
    "intake forms on the patient's phone",
    "the daily front-desk view",
]

THEMES: dict[str, dict[str, list[str]]] = {
    "no-shows": {
        "hooks": [
            "A physio clinic with six therapists loses roughly a day a week to empty slots.",
            "No-shows are rarely a patient problem. They're a reminder problem.",
            "We asked beta clinics what hurts most on a Monday morning. Every answer was about gaps in the diary.",
        ],
        "points": [
            "A reminder the day before recovers most missed slots; a second one two hours ahead catches most of the rest.",
            "The front desk shouldn't have to phone people one by one to fill a gap.",
            "A waitlist that offers a freed slot by text usually fills it within the hour.",
            "Patients rarely mean to miss; they forget, or their day changed and rebooking felt like effort.",
            "The cost isn't only the lost fee: it's a therapist idle for 45 minutes and a recovery that stalls.",
            "Clinics that let patients cancel with one tap get more notice, and more notice means the slot can be reused.",
        ],
        "questions": [
            "How does your clinic handle a same-day cancellation?",
            "What's your no-show rate this quarter, honestly?",
            "Does your front desk still call patients to confirm?",
        ],
    },
    "notes": {
        "hooks": [
            "Most physios we know finish their notes at the kitchen table.",
            "Treatment notes are the part of the job nobody trained for and everybody does at night.",
            "One owner told us she writes 40 notes a week after her kids are asleep.",
        ],
        "points": [
            "Templates for the common presentations (low back pain, ACL rehab, shoulder impingement) cut a note to a few minutes.",
            "Notes written right after the session are better notes: details are fresh, and nothing gets reconstructed from memory.",
            "Outcome measures recorded in the note itself make progress visible to the patient and to insurers.",
            "A good note template asks for less, not more: what changed, what you did, what's next.",
            "If notes live in the same place as the diary, the next appointment already shows what happened last time.",
        ],
        "questions": [
            "When do you actually write your notes?",
            "What's the one field in your note template you'd delete tomorrow?",
            "How long does a follow-up note take you?",
        ],
    },
    "front desk": {
        "hooks": [
            "The front desk is the busiest seat in a small clinic, and it's usually one person.",
            "If your receptionist is off sick, does your clinic still run?",
            "We timed a Monday morning at a beta clinic: 2 hours 10 minutes on the phone before lunch.",
        ],
        "points": [
            "Most of those calls are confirmations and rebookings that a patient would happily do themselves.",
            "Online booking isn't about replacing the front desk; it's about giving them their morning back.",
            "Intake forms filled on the patient's phone before they arrive save five minutes per new patient.",
            "A daily view of who's in, who's paid and who needs a follow-up beats three spreadsheets.",
            "The front desk is also the first impression; when they're less rushed, patients notice.",
        ],
        "questions": [
            "How many calls does your front desk take before 10am?",
            "What's the task your receptionist would happily never do again?",
            "Who covers the desk when your receptionist is away?",
        ],
    },
    "getting paid": {
        "hooks": [
            "Small clinics lend insurers money every month. They just don't call it that.",
            "The average beta clinic had invoices older than 60 days when they joined.",
            "Getting paid shouldn't need a spreadsheet and a Friday afternoon.",
        ],
        "points": [
            "Insurer invoices raised the same day as the session get paid weeks sooner.",
            "Most rejected claims are missing a pre-authorisation number or a session date; both can be checked before sending.",
            "Self-pay patients pay more reliably when the payment link arrives with the booking confirmation.",
            "A simple aged-debt view on Monday morning turns chasing into a ten-minute job.",
        ],
        "questions": [
            "How long does your slowest insurer take to pay?",
            "Who chases unpaid invoices in your clinic?",
            "Do you know what's owed to you right now without opening a spreadsheet?",
        ],
    },
    "growing a clinic": {
        "hooks": [
            "Going from three therapists to eight breaks every system you had.",
            "The second room is easy. The fifth therapist is where it gets hard.",
            "Growth in a clinic shows up first as chaos in the diary.",
        ],
        "points": [
            "Room clashes and double bookings start when the diary lives in more than one place.",
            "New therapists need the same templates and the same way of working from day one.",
            "Owners who still treat need their admin to shrink as the team grows, not the opposite.",
            "Knowing each therapist's utilisation tells you when to hire, not a gut feeling.",
        ],
        "questions": [
            "What broke first when your clinic grew?",
            "How do you decide when to hire the next therapist?",
            "What would you tell yourself at three therapists?",
        ],
    },
}

ANGLES = [
    "a story from a beta clinic",
    "a number-led post",
    "a short how-to",
    "a contrarian take",
    "behind the scenes at Tidewell",
    "a question to the community",
]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
SIGNOFFS = [
    "They go to legal in the next bundle before anything is scheduled.",
    "All of them need legal's OK before they're scheduled; I'll add them to Thursday's bundle.",
    "I'll queue them for legal review and schedule whichever you pick once it's back.",
]


RISKS = [
    "Legal review takes longer than two days and pushes {s} past the date we want.",
    "We judge {s} on too few clinics and read noise as a result; I'll wait for 30+ before calling it.",
    "The agency and we end up with two versions of {s}; I'll keep one master doc and link it everywhere.",
    "Beta clinics see {s} before it's final and think it's the launch announcement.",
    "Theo's time: anything in {s} that needs a product change competes with the billing fix.",
    "Iris is re-exporting assets this week, so visuals for {s} may lag the copy by a day or two.",
]
NEXT_STEPS = [
    "I finish the final version of {s} by {day}.",
    "Iris checks the visuals for {s} against the new template.",
    "Theo confirms anything product-related in {s}.",
    "Legal gets {s} in the next bundle.",
    "I report how {s} performed in Friday's numbers.",
    "You approve {s} — a one-line yes here is enough.",
    "I brief the agency on {s} so their work lines up with ours.",
]
OPEN_QUESTIONS = [
    "Do you want to see {s} again before it goes to legal, or shall I send it straight on?",
    "Is there a clinic you'd rather not feature in {s}?",
    "Should {s} mention the free Starter plan, or stay on Pro?",
    "Any wording you personally dislike? Better to know before {s} goes out.",
    "Do you want your name on {s}, or the company's?",
]
ALTERNATIVES = [
    "Waiting until after launch: cheaper, but we'd learn about {s} only when it matters most.",
    "Handing {s} to the agency: faster, but they don't know the clinics as well as we do.",
    "A bigger version of {s}: more impact, but it wouldn't be ready in time.",
    "Reusing last year's material for {s}: no cost, but it predates the beta and it shows.",
]


def _more(rng: random.Random, subject: str, reply: str) -> str:
    """The parts a careful reply often ends with: risks, next steps, open questions."""
    blocks = []
    if rng.random() < 0.55:
        blocks.append(
            "Risks\n"
            + "\n".join(f"- {r.format(s=subject)}" for r in sample(rng, RISKS, rng.randint(1, 3)))
        )
    if rng.random() < 0.3:
        blocks.append(
            "Alternatives I considered\n"
            + "\n".join(f"- {a.format(s=subject)}" for a in sample(rng, ALTERNATIVES, 2))
        )
    if rng.random() < 0.65:
        day = pick(rng, WEEKDAYS)
        blocks.append(
            "Next steps\n"
            + "\n".join(
                f"{i}. {n.format(s=subject, day=day)}"
                for i, n in enumerate(sample(rng, NEXT_STEPS, rng.randint(2, 4)), start=1)
            )
        )
    if rng.random() < 0.4:
        blocks.append("Open question for you: " + pick(rng, OPEN_QUESTIONS).format(s=subject))
    return "\n\n".join([reply, *blocks])


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


EMAIL_STEPS = [
    (
        "booked their first appointment",
        "the first booking",
        "Book your first patient in two minutes",
        "Settings → Online booking",
        "the booking link goes on your website and Google profile",
    ),
    (
        "invited a colleague",
        "inviting the team",
        "Tidewell works best with your whole team",
        "Team → Invite",
        "each therapist gets their own diary and note templates",
    ),
    (
        "turned on reminders",
        "switching on reminders",
        "One switch that cuts no-shows",
        "Settings → Reminders",
        "patients get a text the day before and can confirm or cancel in one tap",
    ),
    (
        "imported their patient list",
        "importing patients",
        "Bring your patients across in one go",
        "Patients → Import",
        "we check the import with you before anything goes live",
    ),
    (
        "written a treatment note",
        "the first note",
        "Your first note, in three minutes",
        "any appointment → Notes",
        "the template fills in what you already know",
    ),
    (
        "set up insurer invoicing",
        "invoicing",
        "Get paid by insurers sooner",
        "Billing → Insurers",
        "invoices go out the same day as the session",
    ),
]
EMAIL_QUOTES = [
    "I did it between two patients and forgot about it until Monday, when the diary was already full.",
    "It took ten minutes. I'd put it off for a week.",
    "Our receptionist set it up and then showed me. That's the right way round.",
    "I was sure it would be fiddly. It wasn't.",
]


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


METRIC_ACTIONS = [
    "Move budget from the broad 'clinic software' search terms to 'physio booking system' and 'physio software UK', which cost less per trial.",
    "Add a 'book a 15-minute setup call' link to the day-2 email; clinics that talk to us activate at about twice the rate.",
    "Test a shorter signup form (drop the phone number) — it's the field most people abandon on.",
    "Pause the two LinkedIn ads with the lowest click rate and put the money into retargeting site visitors.",
    "Ask Theo to show the sample diary on first login; an empty calendar scares people off.",
    "Send the case study to trials on day 4 instead of day 10.",
    "Call the ten most recent trials that imported patients but never booked; find out what stopped them.",
    "Put the pricing FAQ under the plans instead of on its own page; that page has the highest exit rate.",
]


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


COMPARE_ROWS = [
    (
        "Booking",
        "both offer online booking; {rival} needs a separate add-on for the waitlist, ours is built in.",
    ),
    (
        "Reminders",
        "{rival} includes email reminders, SMS costs extra per message; ours include SMS.",
    ),
    (
        "Notes",
        "{rival} has free-text notes; we have templates for common presentations and outcome measures in the note.",
    ),
    (
        "Invoicing",
        "{rival} exports to accounting software; we raise insurer invoices directly and track what's unpaid.",
    ),
    (
        "Migration",
        "{rival} charges for data import; we import patient lists free and check the result with the clinic.",
    ),
    ("Support", "{rival} is email only; we answer the same working day, by phone if needed."),
    (
        "Classes",
        "{rival} handles one-to-one appointments only; we also run Pilates and rehab classes with capacity and waitlists.",
    ),
    (
        "Mobile",
        "{rival} has an app for therapists; we work in the browser on any tablet, no install.",
    ),
]


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


WEBINAR_TOPICS = [
    "moving off paper intake forms",
    "getting paid faster by insurers",
    "running a clinic with one receptionist",
    "setting up Tidewell in an afternoon",
    "outcome measures that patients understand",
    "filling cancellations from a waitlist",
]
SEGMENTS = [
    "{first} on how the clinic did it before, with one real week as the example",
    "Live walkthrough in Tidewell (prepared demo account, not production)",
    "What went wrong and how they fixed it — keep it honest, it's the most useful part",
    "Three mistakes we see in almost every clinic, and the fix for each",
    "A five-minute checklist attendees can use on Monday",
    "{first} answers the questions clinic owners asked us most in the beta",
    "Before and after: the clinic's diary for one week, side by side",
]


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


SECTIONS = [
    ("hero", "too generic"),
    ("features", "like a list of buttons"),
    ("testimonials", "thin"),
    ("FAQ", "defensive"),
    ("pricing teaser", "confusing"),
    ("how it works", "too long"),
    ("migration", "scary"),
    ("security", "like a legal page"),
]
HEADLINES = [
    "Run your clinic's week from one screen",
    "Fewer empty slots. Notes done before you go home.",
    "Booking, reminders and notes — finally in one place",
    "The admin side of your clinic, handled",
    "Built with physio clinics, for the way you actually work",
    "Give your front desk their mornings back",
    "Your patients, your diary, your notes. One place.",
    "Switch in an afternoon. Keep every patient record.",
]


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


INTERVIEW_NOTES = [
    ("moved from a desktop system, biggest worry was losing history", "trust in the move"),
    (
        "front desk loves the waitlist, therapists still skip outcome measures",
        "the desk is our champion",
    ),
    ("wants a better way to share exercise plans", "exercise plans"),
    ("invoicing insurers was the reason they signed up", "getting paid"),
    ("confused by the Starter vs Pro difference", "plan naming"),
    ("uses Tidewell on an iPad at reception", "devices"),
    ("asked for a way to block time for home visits", "home visits"),
    ("thinks the reminders are too frequent for regular patients", "reminder settings"),
    ("asked for something we already have (recurring appointments)", "discoverability"),
    ("the owner likes it, one senior therapist refuses to change", "staff buy-in"),
]
THEME_TEXT = {
    "trust in the move": "Trust in the move matters more than features; the migration story needs to be on the landing page, not buried in the FAQ.",
    "the desk is our champion": "Where the front desk likes Tidewell, adoption spreads; where only the owner does, it stalls.",
    "exercise plans": "Exercise-plan sharing is asked for often enough to show it in onboarding and in the tour.",
    "getting paid": "Invoicing is a reason to buy, not just a feature; it should move up in the pricing page list.",
    "plan naming": "A clinic that can't tell the plans apart in ten seconds will ask, and many won't; each plan needs a 'what's included' line.",
    "devices": "Reception runs on tablets more than we assumed; screenshots in marketing should show one.",
    "home visits": "Home visits are a niche but loud request; Theo should hear it, marketing shouldn't promise it.",
    "reminder settings": "Reminder frequency needs a clear setting and a line in the FAQ, or clinics will turn reminders off altogether.",
    "discoverability": "Some features are invisible; that's an onboarding problem, not a product gap.",
    "staff buy-in": "Owners need help convincing their own team; a short 'for your therapists' page would do that.",
}


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


AD_COPY = [
    "Booking, reminders and notes in one place. Built with physio clinics. Start free.",
    "Fewer empty slots, notes done by six. Try Tidewell free — no card needed.",
    "Your front desk, with mornings back. Online booking and reminders for physio clinics.",
    "Switch in an afternoon. We import your patients for free.",
    "Physio clinic software that your receptionist will actually like.",
    "Stop chasing insurers. Invoices go out the day of the session.",
]


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


BLOG_TITLES = [
    (
        "How to cut no-shows in a physio clinic without nagging patients",
        "reduce no-shows physio",
        "no-shows",
    ),
    (
        "What to look for in physio clinic software (a checklist)",
        "physio clinic software",
        "growing a clinic",
    ),
    (
        "Treatment notes in five minutes: templates that actually help",
        "physio treatment note template",
        "notes",
    ),
    (
        "Moving your clinic off paper intake forms",
        "online intake forms physiotherapy",
        "front desk",
    ),
    (
        "Getting paid by insurers: the boring fixes that work",
        "physio insurance invoicing",
        "getting paid",
    ),
    (
        "Hiring your fourth therapist: what changes in the diary",
        "growing a physio clinic",
        "growing a clinic",
    ),
    ("The front-desk Monday: where the hours go", "physio receptionist workload", "front desk"),
]


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


SYNC_TOPICS = [
    "the onboarding checklist in the app",
    "launch-day monitoring",
    "the help centre structure",
    "in-app announcements for beta clinics",
    "the signup flow",
    "the referral programme",
    "the demo account for webinars",
    "the status page and incident messages",
]
SYNC_DECISIONS = [
    "Which three steps a new clinic must complete before we call it activated",
    "Who writes the in-app text and who approves it",
    "Whether it ships before launch or in the first week after",
    "What we measure and where the dashboard lives",
    "What happens when a step fails (error copy, fallback)",
    "Whether beta clinics see it too",
    "Who is on call on launch day and until when",
]


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


FAQ_POOL = [
    (
        "Can I import my patients from my current system?",
        "Yes. Send us a CSV or an export from your current system and we'll import patients and future appointments for free, then check the result with you before you switch.",
    ),
    (
        "Do patients need to download an app?",
        "No. Patients book, confirm and fill intake forms in their browser from a link in a text or email.",
    ),
    (
        "Can therapists use it on a tablet?",
        "Yes, Tidewell works in any modern browser, including on tablets at the treatment table.",
    ),
    (
        "What happens to my data if I leave?",
        "You can export everything — patients, notes, invoices — at any time, in standard formats. We delete your data 30 days after you close your account, unless you ask us to sooner.",
    ),
    (
        "Is there a contract?",
        "No. Monthly plans can be cancelled at any time; annual plans run for a year.",
    ),
    (
        "Can I send reminders by WhatsApp?",
        "Not yet. Reminders go by SMS and email today; WhatsApp is on our list.",
    ),
    (
        "How long does setup take?",
        "Most clinics are booking real patients the same day. Importing a patient list usually takes a day, and we do it with you.",
    ),
    (
        "Do you support group classes like Pilates?",
        "Yes. You can set class capacity, waitlists and package credits.",
    ),
    (
        "Can patients pay online?",
        "Yes. Self-pay patients can pay by card from the booking confirmation, or at the desk as usual.",
    ),
    (
        "Can I control what each staff member sees?",
        "Yes. Receptionists see the diary and contact details; clinical notes are visible only to therapists and the owner.",
    ),
]


def _faq(rng: random.Random, seq: int, state: dict[str, object]) -> tuple[str, str]:
    items = sample(rng, FAQ_POOL, rng.randint(3, 6))
    instruction = (
        pick(
            rng,
            [
                "Write FAQ answers for these, plain and short:",
                "Support keeps getting these questions. Draft help-centre answers:",
            ],
        )
        + "\n"
        + "\n".join(f"- {q}" for q, _ in items)
    )
    reply = (
        "\n\n".join(f"Q: {q}\nA: {a}" for q, a in items)
        + "\n\nNotes: I avoided promises about dates for features we don't have yet. "
        "The data answers need Theo to confirm the details, and the whole set goes to legal with the next bundle. "
        f"I'd put the first {min(3, len(items))} on the pricing page as well, since that's where people hesitate; support can link the rest in replies."
    )
    return instruction, _more(rng, "the FAQ answers", reply)


CASE_QUOTES = [
    "We stopped chasing people and started treating them.",
    "Monday mornings used to be phone calls. Now they are patients.",
    "I finish my notes before I leave the building, which I had not done in years.",
    "The waitlist paid for the software in the first month.",
    "Our receptionist was the sceptic. Now she is the one showing new staff.",
]


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


STREAMS = [
    ("Website", ["landing page v2 live", "pricing page final", "signup flow tested on mobile"]),
    ("Content", ["two case studies", "help centre top 20 articles", "launch blog post"]),
    ("PR", ["press list", "embargoed briefings", "press kit"]),
    ("Email", ["nurture sequence", "launch emails to the list", "beta clinic announcement"]),
    ("Paid", ["search account built", "ads approved by legal", "LinkedIn audiences"]),
    (
        "Community",
        ["beta clinics asked to post", "association newsletter slot", "Product Hunt page"],
    ),
    ("Sales", ["one-pager", "demo script", "objection handling notes"]),
]


def _checklist(rng: random.Random, seq: int, state: dict[str, object]) -> tuple[str, str]:
    instruction = pick(
        rng,
        [
            "Where are we on the launch checklist? Status by workstream, and what's at risk.",
            "Give me the launch status in one screen — what's done, what's late, what you need from me.",
            "Before my board call: where does the launch stand?",
        ],
    )
    lines, risks = [], []
    for name, items in sample(rng, STREAMS, rng.randint(4, 7)):
        parts = []
        for item in items:
            status = pick(
                rng, ["done", "done", "on track", "on track", "late", "at risk", "not started"]
            )
            parts.append(f"{item}: {status}")
            if status in ("late", "at risk"):
                risks.append(item)
        lines.append(f"- {name} — " + "; ".join(parts))
    reasons = [
        "waiting on legal",
        "waiting on the clinic to approve",
        "Theo is on the billing fix this week",
        "the agency needs our data first",
        "needs a decision from you",
        "Iris is re-exporting the assets",
    ]
    reply = (
        "Launch checklist\n\n"
        + "\n".join(lines)
        + "\n\nAt risk\n"
        + ("\n".join(f"- {r}: {pick(rng, reasons)}" for r in risks) or "- nothing today")
        + "\n\nWhat I need from you: "
        + pick(
            rng,
            [
                "a yes on the two case-study quotes",
                "ten minutes to record the launch video intro",
                "a decision on whether beta clinics keep their discount",
                "the founder bio for the press kit",
                "an intro to the association's events person",
            ],
        )
        + ".\n\nEverything else is moving; I'll update this every Monday."
    )
    return instruction, _more(rng, "the checklist", reply)


AB_ELEMENTS = [
    ("the signup button text", "'Start free' against 'Create your clinic'"),
    ("the pricing page layout", "two plans side by side against a single plan with a toggle"),
    ("the day-2 email subject", "a question against a plain instruction"),
    ("the hero image", "a receptionist at a tablet against a therapist with a patient"),
    ("the trial message", "'free forever for one practitioner' against 'no card needed'"),
    ("the demo video length", "a 60-second tour against a 3-minute walkthrough"),
]


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


ORGS = [
    "the physiotherapy association's regional group",
    "a sports-injury podcast",
    "a clinic-owners Facebook group",
    "a physio supply shop",
    "a university physio department",
    "a Pilates instructors' network",
]
OFFERS = [
    "a members' offer: three months of Pro free for their members",
    "a joint session on clinic admin for their audience",
    "a sponsored slot in their newsletter with a practical guide, not an ad",
    "a guest episode with one of our beta clinic owners",
    "a printed one-page checklist for their next event, with their logo on it",
]


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


SPEND_LINES = ["paid search", "LinkedIn", "PR retainer", "webinar and content", "events and swag"]


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


SUPPORT_CASES = [
    (
        "a clinic can't find where to turn reminders off for one patient",
        "Open the patient → Communication → untick 'Appointment reminders'. It applies to that patient only.",
    ),
    (
        "a receptionist was locked out after three wrong passwords",
        "Lockouts clear after 15 minutes; the owner can also reset it under Team. We never ask for passwords by email or phone.",
    ),
    (
        "a patient says they never got the reminder text",
        "Check the number on the patient record first; most failures are a missing digit or a landline. The message log on the appointment shows whether it was delivered.",
    ),
    (
        "an owner asks whether they can move from Starter to Pro mid-month",
        "Yes — the upgrade is immediate and we charge the difference for the rest of the month, nothing more.",
    ),
    (
        "an import shows appointments an hour off",
        "That's a time-zone setting in the export; we'll re-run the import with the right zone, no data is lost.",
    ),
]


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


VIDEO_BEATS = [
    "Open on the front desk at 08:30: the phone rings twice while a patient waits",
    "A therapist finishing a note in two minutes between sessions",
    "The waitlist filling a cancelled slot by text",
    "An owner looking at Monday's diary with no gaps",
    "Patient fills an intake form on their phone in the waiting room",
    "Invoice sent to the insurer with one click after the session",
]


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


WEEK_PLAN = {
    "Monday (launch -1)": [
        "09:00 Final check of the signup flow on three phones and two browsers — Theo, Mara",
        "11:00 Press: last embargoed briefings — the agency",
        "14:00 Ads switched from warm-up to launch budgets, scheduled for 08:00 tomorrow — Mara",
        "16:00 Support macros loaded, rota confirmed — Mara",
        "18:00 Servers scaled for the spike — Theo",
    ],
    "Tuesday (launch day)": [
        "08:00 Embargo lifts; Product Hunt page live — Mara",
        "08:15 Email to the newsletter list — Mara",
        "08:30 Founder post on LinkedIn; beta clinics start sharing — you",
        "10:00 First numbers check: visits, signups, errors — Mara, Theo",
        "12:30 Reminder email to non-openers — Mara",
        "15:00 Replies to every Product Hunt comment so far — you, Mara",
        "18:00 Recap to the team with the day's numbers — Mara",
    ],
    "Wednesday": [
        "09:00 Review launch-day numbers; move budget to the best channel — Mara",
        "11:00 Follow-up to journalists who didn't cover it yet — the agency",
        "14:00 Call the first ten paying clinics to say thank you — you",
        "16:00 Fix list from support tickets, ranked — Theo, Mara",
    ],
    "Thursday": [
        "10:00 Webinar dry run — Mara and the guest",
        "13:00 Publish the launch blog post and the case study — Mara",
        "15:00 Share the best customer reactions internally and, with permission, publicly — Mara",
    ],
    "Friday": [
        "10:00 Week-one numbers against targets — Mara",
        "12:00 Retro: what went wrong, what to keep — everyone",
        "15:00 Plan for week two: which channels get more money — Mara, you",
    ],
}


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


QUICK: list[tuple[str, str]] = [
    (
        "Quick one: three subject lines for the beta clinic thank-you email?",
        "1. Thank you for building this with us\n2. You shaped Tidewell — here's what changed because of you\n3. From the whole team: thank you\n\nI'd go with 2; it's specific and gives a reason to open. I'd also add a short list of three changes that came from beta feedback, with the clinic names where they agreed to be named. Send it from you, not from the marketing address, and on a weekday morning.",
    ),
    (
        "Quick one: should we reply to the negative comment on my post or leave it?",
        "Reply, once, calmly, and take it private. Something like: \"Fair point — we've heard this from a couple of clinics and it's on our list. Could I message you to understand your set-up?\" Don't argue the details in public. If they reply angrily, leave it; other clinic owners read how we behave more than what the commenter says. I'll keep an eye on the thread over the weekend.",
    ),
    (
        "Quick one: do we call trials that booked a real appointment 'activated' or 'live'?",
        "'Activated'. It's what we already use in the weekly numbers, and 'live' will get confused with the launch itself. The definition to keep everywhere: a trial that booked at least one real (non-demo) appointment in Tidewell. I'll put the definition in the dashboard description so nobody quietly redefines it, and tell the agency so their reports match ours.",
    ),
    (
        "Quick one: is 'physio' fine in headlines or should we write 'physiotherapy'?",
        "'Physio' in headlines and social — it's what owners say and search for. 'Physiotherapy' in page titles and at the first mention in formal copy (press release, legal pages), since search engines and association readers expect it. In ads, test both; 'physio software' has more searches in the UK, 'physiotherapy software' converts slightly better in our small sample.",
    ),
    (
        "Quick one: how many beta clinic logos can we show on the homepage?",
        "Only the ones with a written yes. Right now that's a handful — I've asked the others in the thank-you email. I'd show six at most in one row; more looks like a wall and nobody reads it. We need the latest logo files from each clinic, not screenshots from their websites, and I'll keep the written permissions in the shared folder.",
    ),
    (
        "Quick one: what time should the launch-day email go out?",
        "Shortly after the embargo lifts, so the press pieces exist when people click through — I'd say 08:15. Clinic owners check email before their first patient or at lunch; a second, shorter reminder to non-openers at 12:30 catches the lunch crowd. Not later than that: afternoons are full sessions and nobody reads email.",
    ),
    (
        "Quick one: can we use the word 'free' in the Starter plan ads?",
        "Yes, as long as it's true without conditions — and it is for one practitioner. What we can't do is imply the whole clinic is free. Wording I'd use: 'Free for one practitioner. Upgrade when your team grows.' Legal has seen that exact line already, so we can reuse it without a new review.",
    ),
]


def _quick(rng: random.Random, seq: int, state: dict[str, object]) -> tuple[str, str]:
    """A short exchange, each asked once; when all were asked, an empty one that the
    builder rejects, so another template runs."""
    used = state.setdefault("quick", [])
    assert isinstance(used, list)
    left = [i for i in range(len(QUICK)) if i not in used]
    if not left:
        return "", ""
    index = pick(rng, left)
    used.append(index)
    return QUICK[index]


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
    _faq,
    _case_study,
    _checklist,
    _ab_test,
    _outreach,
    _spend,
    _support_macros,
    _video,
    _press_review,
    _launch_week,
    _quick,
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
