# ruff: noqa: E501
"""What the English transcript (launch_en.py) says: its planted missions, the facts
and the questions that probe them, and the pools of words its templates draw from."""

from bench.transcripts.common import Fact, Question
from bench.transcripts.templates import Checklist, Closing, Faq, LaunchWeek

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


AD_COPY = [
    "Booking, reminders and notes in one place. Built with physio clinics. Start free.",
    "Fewer empty slots, notes done by six. Try Tidewell free — no card needed.",
    "Your front desk, with mornings back. Online booking and reminders for physio clinics.",
    "Switch in an afternoon. We import your patients for free.",
    "Physio clinic software that your receptionist will actually like.",
    "Stop chasing insurers. Invoices go out the day of the session.",
]


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


CASE_QUOTES = [
    "We stopped chasing people and started treating them.",
    "Monday mornings used to be phone calls. Now they are patients.",
    "I finish my notes before I leave the building, which I had not done in years.",
    "The waitlist paid for the software in the first month.",
    "Our receptionist was the sceptic. Now she is the one showing new staff.",
]


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


AB_ELEMENTS = [
    ("the signup button text", "'Start free' against 'Create your clinic'"),
    ("the pricing page layout", "two plans side by side against a single plan with a toggle"),
    ("the day-2 email subject", "a question against a plain instruction"),
    ("the hero image", "a receptionist at a tablet against a therapist with a patient"),
    ("the trial message", "'free forever for one practitioner' against 'no card needed'"),
    ("the demo video length", "a 60-second tour against a 3-minute walkthrough"),
]


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


SPEND_LINES = ["paid search", "LinkedIn", "PR retainer", "webinar and content", "events and swag"]


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


VIDEO_BEATS = [
    "Open on the front desk at 08:30: the phone rings twice while a patient waits",
    "A therapist finishing a note in two minutes between sessions",
    "The waitlist filling a cancelled slot by text",
    "An owner looking at Monday's diary with no gaps",
    "Patient fills an intake form on their phone in the waiting room",
    "Invoice sent to the insurer with one click after the session",
]


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


CLOSING = Closing(
    risk_chance=0.55,
    risk_heading="Risks",
    risks=RISKS,
    alternative_chance=0.3,
    alternative_heading="Alternatives I considered",
    alternatives=ALTERNATIVES,
    next_chance=0.65,
    next_heading="Next steps",
    next_steps=NEXT_STEPS,
    weekdays=WEEKDAYS,
    question_chance=0.4,
    question_prefix="Open question for you: ",
    questions=OPEN_QUESTIONS,
)


CHECKLIST = Checklist(
    asks=[
        "Where are we on the launch checklist? Status by workstream, and what's at risk.",
        "Give me the launch status in one screen — what's done, what's late, what you need from me.",
        "Before my board call: where does the launch stand?",
    ],
    streams=STREAMS,
    streams_drawn=(4, 7),
    statuses=["done", "done", "on track", "on track", "late", "at risk", "not started"],
    troubled=("late", "at risk"),
    reasons=[
        "waiting on legal",
        "waiting on the clinic to approve",
        "Theo is on the billing fix this week",
        "the agency needs our data first",
        "needs a decision from you",
        "Iris is re-exporting the assets",
    ],
    heading="Launch checklist",
    risk_heading="At risk",
    no_risk="- nothing today",
    need_prefix="What I need from you: ",
    needs=[
        "a yes on the two case-study quotes",
        "ten minutes to record the launch video intro",
        "a decision on whether beta clinics keep their discount",
        "the founder bio for the press kit",
        "an intro to the association's events person",
    ],
    ending="Everything else is moving; I'll update this every Monday.",
    subject="the checklist",
)


FAQ = Faq(
    pool=FAQ_POOL,
    drawn=(3, 6),
    asks=[
        "Write FAQ answers for these, plain and short:",
        "Support keeps getting these questions. Draft help-centre answers:",
    ],
    answer="Q: {q}\nA: {a}",
    notes="Notes: I avoided promises about dates for features we don't have yet. The data answers need Theo to confirm the details, and the whole set goes to legal with the next bundle. I'd put the first {n} on the pricing page as well, since that's where people hesitate; support can link the rest in replies.",
    subject="the FAQ answers",
)


LAUNCH_WEEK = LaunchWeek(
    asks=[
        "Write out launch week day by day, hour by hour where it matters, with owners. I want to print it and pin it on the wall.",
        "Can you redo the launch-week plan with everything we've changed since the last version? Day by day, owners on every line.",
    ],
    plan=WEEK_PLAN,
    heading="Launch week — the wall version",
    rules="\n\nRules for the week\n- One channel for launch chatter (our launch channel); decisions go in the decisions doc.\n- Anything public still goes through legal; approved spares are in the shared folder for quick swaps.\n- If signups stall below {0} by noon on launch day, we call a 15-minute huddle, not a meeting.\n- Nobody deploys after 16:00 without Theo.\n\nTargets for the week: {1} trials, {2}% activated, {3} press pieces, a top-five finish on Product Hunt.",
    draws=((40, 90, 1), (6, 12, 50), (35, 50, 1), (3, 9, 1)),
    subject="launch week",
)
