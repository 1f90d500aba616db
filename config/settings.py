"""One settings tree, driven by the environment (see .env.example and the README).

Nothing set gives the embedded default: SQLite under the project, an in-memory channel
layer, tasks on a background thread in the web process and the offline model provider.
"""

import os
import tempfile
from pathlib import Path
from typing import cast

import dj_database_url
from kombu import Queue

from config.env import (
    EnvError,
    env_bool,
    env_choice,
    env_float,
    env_int,
    env_list,
    env_path,
    env_redis_prefix,
    env_str,
    env_url,
    secret_key_file,
    secret_key_problem,
)

BASE_DIR = Path(__file__).resolve().parent.parent

OFFICE_ENV = env_choice("OFFICE_ENV", "embedded", ("embedded", "production"))
PRODUCTION = OFFICE_ENV == "production"

# Off unless asked for (DEBUG=1 on a developer's machine): a debug page lists every URL
# pattern and setting to whoever hits a missing page.
DEBUG = env_bool("DEBUG", default=False)
SECRET_KEY = env_str("SECRET_KEY")
if PRODUCTION:
    if DEBUG:
        raise EnvError("DEBUG must be off when OFFICE_ENV=production")
    # Sessions, password-reset links and the known-device cookie are all signed with it:
    # Django's own check (security.W009) lets `abcde` × 12 through; this one judges the
    # guesses it would take (config.env.secret_key_problem).
    weak = secret_key_problem(SECRET_KEY)
    if weak:
        raise EnvError(weak)
elif not SECRET_KEY:
    # The embedded default makes its own key on first run, kept beside its database (never
    # in the repository); production refuses to start without one (above).
    SECRET_KEY = secret_key_file(env_path("SECRET_KEY_FILE", BASE_DIR / ".secret_key"))

ALLOWED_HOSTS = env_list(
    "ALLOWED_HOSTS", [] if PRODUCTION else ["127.0.0.1", "localhost", "[::1]", "testserver"]
)
if PRODUCTION and not ALLOWED_HOSTS:
    raise EnvError("ALLOWED_HOSTS must list the host names this server answers to in production")
if PRODUCTION and "*" in ALLOWED_HOSTS:
    # Any Host header would be believed: in links, in the origin check of the sockets.
    raise EnvError("ALLOWED_HOSTS must name the hosts, not *, in production")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    # django-ninja's bundled Swagger UI assets: /api/docs is served from our own static
    # files, under the same CSP, with no CDN.
    "ninja",
    "office",
    "sessions.apps.ChatSessionsConfig",
    "missions",
    "summaries",
    "memory",
    "context",
    "llm",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "office.security.ContentSecurityPolicyMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    # NUL and other control characters in the address, cookies or credentials: a 400.
    "config.textguard.TextGuardMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # After authentication: a signed-in person's own language wins over the cookie and
    # the browser's Accept-Language that LocaleMiddleware looked at.
    "office.middleware.UserLanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "office.middleware.IdOutOfRangeMiddleware",
]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database -------------------------------------------------------------------------
DATABASE_URL = env_url("DATABASE_URL", ("postgres", "postgresql", "pgsql", "sqlite"))
DATABASE_POOL = env_bool("DATABASE_POOL", default=True)
DATABASE_POOL_MAX = env_int("DATABASE_POOL_MAX", 10, minimum=1)
DATABASE_PREPARED = env_bool("DATABASE_PREPARED", default=True)
# The mission path's fixed-shape queries (config.prepared) through the plain ORM, or, on,
# compiled once per connection through Django's compiler internals (docs/benchmarks.md,
# "Compiled queries": what that saves per mission).
COMPILED_QUERIES = env_bool("COMPILED_QUERIES", default=False)
SQLITE_BUSY_TIMEOUT = env_int("SQLITE_BUSY_TIMEOUT", 20, minimum=1)


def _sqlite(name: str | Path) -> dict[str, object]:
    # WAL lets readers run beside the single writer; IMMEDIATE takes the write lock at
    # BEGIN so two writers queue on the busy timeout instead of failing with
    # "database is locked" when one upgrades a read transaction.
    # A SQLite connection is a file handle of its thread, not a server's: it is kept
    # (CONN_MAX_AGE None) rather than reopened, with its PRAGMAs and Django's SQL
    # functions, for every database hop of the socket consumer (2.95 → 0.60 ms a hop,
    # measured). Threads are few: the consumer's one sync thread and the lanes' pools;
    # an HTTP request's own thread takes its connection with it when it ends.
    # Tests get a file too, never Django's shared-cache memory database: there a reader
    # beside a writer fails at once ("database table is locked") instead of waiting, so
    # tests of the thread lanes would fail by timing. One file per test process.
    test_name = env_str("TEST_DATABASE_NAME") or str(
        Path(tempfile.gettempdir()) / f"office-test-{os.getpid()}.sqlite3"
    )
    return {
        "ENGINE": "config.sqlite",
        "NAME": str(name),
        "CONN_MAX_AGE": None,
        "TEST": {"NAME": test_name},
        "OPTIONS": {
            "timeout": SQLITE_BUSY_TIMEOUT,
            "transaction_mode": "IMMEDIATE",
            "init_command": (
                "PRAGMA journal_mode=WAL;PRAGMA synchronous=NORMAL;"
                f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT * 1000};"
            ),
        },
    }


if not DATABASE_URL:
    _default_db: dict[str, object] = _sqlite(BASE_DIR / "db.sqlite3")
elif DATABASE_URL.startswith("sqlite"):
    _default_db = _sqlite(dj_database_url.parse(DATABASE_URL)["NAME"])
else:
    _default_db = dict(dj_database_url.parse(DATABASE_URL, conn_max_age=0))
    _default_db["ENGINE"] = "django.db.backends.postgresql"
    # Under ASGI each request may run on another thread: persistent connections
    # (CONN_MAX_AGE) leak there, psycopg's pool does not.
    # The URL's query (sslmode, application_name, …) is in OPTIONS already: add to it.
    _options = cast(dict[str, object], _default_db.setdefault("OPTIONS", {}))
    if DATABASE_POOL:
        _options["pool"] = {"min_size": 1, "max_size": DATABASE_POOL_MAX, "timeout": 10}
    if DATABASE_PREPARED:
        # Parameters travel apart from the SQL, and a statement a connection runs a second
        # time is prepared on the server: PostgreSQL parses and plans it once per
        # connection instead of on every call (half of its CPU on the mission path was
        # parsing and planning the same few dozen statements, measured). Off behind a
        # pooler that cannot keep prepared statements (PgBouncer in transaction mode
        # before 1.21).
        _options["server_side_binding"] = True
        _options["prepare_threshold"] = 2
    _default_db["TEST"] = {"NAME": env_str("TEST_DATABASE_NAME") or None}
DATABASES = {"default": _default_db}
IS_POSTGRES = _default_db["ENGINE"] == "django.db.backends.postgresql"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Redis: channel layer and Celery broker -------------------------------------------
REDIS_URL = env_url("REDIS_URL", ("redis", "rediss"))
# Every key, queue and pub/sub channel of this deployment in Redis is named under it, so
# that two deployments on one Redis server share nothing (config.env.env_redis_prefix).
REDIS_PREFIX = env_redis_prefix("REDIS_PREFIX", secret_key=SECRET_KEY)
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "config.channel_layer.RedisPubSubLayer",
            # No socket timeout: the subscription waits on Redis for as long as no event
            # comes, and redis-py 8's default 5 s timeout would break it every 5 s.
            "CONFIG": {
                "hosts": [{"address": REDIS_URL, "socket_timeout": None}],
                "prefix": REDIS_PREFIX,
                # Events waiting for one socket; beyond that a slow socket loses them.
                "capacity": env_int("CHANNEL_CAPACITY", 1000),
                # Connections to Redis for sends, per process and event loop; a burst
                # waits for a free one.
                "pool_max": env_int("CHANNEL_LAYER_POOL_MAX", 100, minimum=2),
                "pool_timeout": env_int("CHANNEL_LAYER_POOL_TIMEOUT", 10, minimum=1),
            },
        }
    }
else:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "config.channel_layer.EmbeddedChannelLayer",
            "CONFIG": {"capacity": env_int("CHANNEL_CAPACITY", 1000)},
        }
    }

# The cache holds rate-limit counters: shared through Redis when there is one.
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": REDIS_PREFIX,
            # A Redis that does not answer must not hold an instruction up: the limiter
            # then counts in the database (missions.ratelimit).
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# How tasks run: "celery" (workers behind REDIS_URL), "thread" (in the web process, on a
# background thread: the embedded default) or "inline" (in the caller; tests only).
TASK_RUNNER = env_choice(
    "TASK_RUNNER", "celery" if REDIS_URL else "thread", ("celery", "thread", "inline")
)
if TASK_RUNNER == "celery" and not REDIS_URL:
    raise EnvError("TASK_RUNNER=celery needs REDIS_URL for the broker")

# Two lanes, two queues: a worker for each (README "Running on PostgreSQL, Redis and Celery").
CELERY_TASK_QUEUES = (Queue("replies"), Queue("background"))
CELERY_TASK_DEFAULT_QUEUE = "background"
# Imported by a worker at start: its warm-up (config/warmup.py) runs before the first task.
CELERY_IMPORTS = ("config.warmup",)
CELERY_TASK_ROUTES = {
    "missions.tasks.mission_run": {"queue": "replies"},
    # The notice lands under the instruction, before the reply: same lane.
    "sessions.tasks.*": {"queue": "replies"},
    "summaries.tasks.*": {"queue": "background"},
    "memory.tasks.*": {"queue": "background"},
    "context.tasks.*": {"queue": "background"},
    "missions.tasks.mission_sweep_stuck": {"queue": "background"},
    "missions.tasks.attachment_extract": {"queue": "background"},
}
# Threads of the embedded runner's lanes (the web process runs the tasks itself).
REPLY_CONCURRENCY = env_int("REPLY_CONCURRENCY", 64, minimum=1)
BACKGROUND_CONCURRENCY = env_int("BACKGROUND_CONCURRENCY", 2, minimum=1)
# Replies of one process (web or replies worker) that claim, assemble or save at once;
# waiting for the model needs no slot (missions/slots.py).
REPLY_CPU_SLOTS = env_int("REPLY_CPU_SLOTS", 8, minimum=1)
# The CPU a server process keeps its threads on (config/cpu.py): "auto" pins the embedded
# web process to the CPU it starts on and leaves production processes alone; "off"; or a
# CPU number (any runtime).
PIN_CPU = env_str("PIN_CPU", "auto").lower()
if PIN_CPU not in ("auto", "off") and not PIN_CPU.isdigit():
    raise EnvError(f"PIN_CPU must be auto, off or a CPU number, got {PIN_CPU!r}")
CELERY_BROKER_URL = REDIS_URL or "memory://"
if REDIS_URL and REDIS_URL.startswith("redis://"):
    # kombu's Redis transport, keeping one client per channel (config/broker.py). Not for
    # rediss://: kombu turns TLS on from the scheme only when it picks the transport itself.
    CELERY_BROKER_TRANSPORT = "config.broker:Transport"
CELERY_RESULT_BACKEND = REDIS_URL or None
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# A task unacknowledged this long is delivered again; longer than any reply or fold.
CELERY_VISIBILITY_TIMEOUT = env_int("CELERY_VISIBILITY_TIMEOUT", 3600, minimum=5)
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": CELERY_VISIBILITY_TIMEOUT,
    # How often workers look for tasks a dead worker left unacknowledged; kombu's default
    # (about every 100 s) would outlast a short visibility timeout many times over.
    "unacked_restore_interval": max(1, min(10, CELERY_VISIBILITY_TIMEOUT // 2)),
    "unacked_restore_throttle": 1,
    "socket_connect_timeout": 2,
    "socket_timeout": 5,
    # Queues, the unacknowledged-message bookkeeping and the workers' control messages
    # (a fanout over pub/sub, which no database number separates) of this deployment.
    "global_keyprefix": f"{REDIS_PREFIX}:",
}
CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS = {
    "visibility_timeout": CELERY_VISIBILITY_TIMEOUT,
    "global_keyprefix": f"{REDIS_PREFIX}:",
}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Publishing gives up within about a second when the broker is down: the instruction is
# already saved, the person is told it is delayed, and the sweeper sends it again.
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 2,
    "interval_start": 0,
    "interval_step": 0.3,
    "interval_max": 0.5,
}
CELERY_TASK_SERIALIZER = "json"
# Nothing reads task results, except the chord of a block compaction (its tasks opt in).
CELERY_TASK_IGNORE_RESULT = True
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"

# --- Models ---------------------------------------------------------------------------
OPENAI_API_KEY = env_str("OPENAI_API_KEY")
OPENAI_BASE_URL = env_url("OPENAI_BASE_URL", ("http", "https"))
OPENAI_MODEL = env_str("OPENAI_MODEL", "gpt-4o-mini")
OPENAI_TIMEOUT = env_float("OPENAI_TIMEOUT", 60.0, minimum=0.1)
OPENAI_MAX_ATTEMPTS = env_int("OPENAI_MAX_ATTEMPTS", 3, minimum=1)
LLM_PROVIDER = env_choice(
    "LLM_PROVIDER", "openai" if OPENAI_API_KEY else "offline", ("openai", "offline")
)
if LLM_PROVIDER == "openai" and not OPENAI_API_KEY:
    raise EnvError("LLM_PROVIDER=openai needs OPENAI_API_KEY")

# --- Context engineering (docs/design.md §3) --------------------------------------------
DETAIL_MISSIONS = env_int("DETAIL_MISSIONS", 8, minimum=1)
DETAIL_BUDGET_CHARS = {
    "dm": env_int("DETAIL_BUDGET_CHARS_DM", 20_000, minimum=500),
    "project": env_int("DETAIL_BUDGET_CHARS_PROJECT", 20_000, minimum=500),
    "master": env_int("DETAIL_BUDGET_CHARS_MASTER", 16_000, minimum=500),
    "all": env_int("DETAIL_BUDGET_CHARS_ALL", 16_000, minimum=500),
}
# The whole prompt of a mission, per channel kind: what the sections before recall leave
# unused goes to recall.
CONTEXT_BUDGET_CHARS = {
    "dm": env_int("CONTEXT_BUDGET_CHARS_DM", 32_000, minimum=4_000),
    "project": env_int("CONTEXT_BUDGET_CHARS_PROJECT", 32_000, minimum=4_000),
    "master": env_int("CONTEXT_BUDGET_CHARS_MASTER", 28_000, minimum=4_000),
    "all": env_int("CONTEXT_BUDGET_CHARS_ALL", 28_000, minimum=4_000),
}
# Caps of the sections that had none: the system message (persona, colleagues, standing
# rules) and the pending digests (each trimmed with a marker). The current instruction has
# no cap of its own: it gets what the envelope leaves beside them, the summary and memory.
SYSTEM_BUDGET_CHARS = env_int("SYSTEM_BUDGET_CHARS", 4_000, minimum=500)
# The share of the system message kept for the rules in force (docs/design.md §3): the
# persona gives way to them, down to what this leaves.
RULES_BUDGET_CHARS = env_int("RULES_BUDGET_CHARS", 1_600, minimum=0)
PENDING_BUDGET_CHARS = env_int("PENDING_BUDGET_CHARS", 2_400, minimum=300)
# Missions that have left the detail window before a fold runs (docs/design.md §4).
FOLD_BATCH = env_int("FOLD_BATCH", 8, minimum=1)
SUMMARY_BUDGET_CHARS = env_int("SUMMARY_BUDGET_CHARS", 4_000, minimum=500)
MEMORY_BUDGET_CHARS = env_int("MEMORY_BUDGET_CHARS", 3_000, minimum=200)
RECALL_BUDGET_CHARS = env_int("RECALL_BUDGET_CHARS", 3_000, minimum=200)
# How Korean is normalised for search (language.analysis): "kiwi" (a morphological
# analyser, ≈ 0.3 GB per process) or "rules" (no model). After a change, run
# `manage.py reindex_search`.
SEARCH_KOREAN_ANALYSER = env_choice("SEARCH_KOREAN_ANALYSER", "kiwi", ("kiwi", "rules"))
# The meaning layer (language.meaning, docs/meaning.md): the sentence-embedding model that
# ranks recall and memory by meaning beside their terms, and tells whether two statements
# are about the same thing. "off": terms alone. After a change, the background lane embeds
# what the new model has no vectors for.
MEANING_MODEL = env_choice(
    "MEANING_MODEL", "use-multilingual-3", ("use-multilingual-3", "e5-small-q4", "off")
)
LONG_SESSION_MISSIONS = env_int("LONG_SESSION_MISSIONS", 20, minimum=1)
MAX_INSTRUCTION_CHARS = env_int("MAX_INSTRUCTION_CHARS", 20_000, minimum=100)
# Largest HTTP request body: refused with 413 at the ASGI edge before it is read (by its
# Content-Length, or while a chunked body streams in), and Django's own cap on what it
# parses. The largest legitimate body (an instruction of MAX_INSTRUCTION_CHARS, JSON-
# escaped) is a small fraction of it.
MAX_REQUEST_BODY_BYTES = env_int("MAX_REQUEST_BODY_BYTES", 1024 * 1024, minimum=64 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = MAX_REQUEST_BODY_BYTES
FILE_UPLOAD_MAX_MEMORY_SIZE = MAX_REQUEST_BODY_BYTES
# Attachments (docs/design.md §4a): the largest file a person may give with an
# instruction, how many one instruction takes, how much of a file's text is kept and
# indexed for recall, and how much of it the instruction's own prompt quotes (the rest is
# pruned to what the instruction asks). Uploads are the one request whose body may pass
# MAX_REQUEST_BODY_BYTES: up to ATTACHMENT_MAX_BYTES and the form around it.
ATTACHMENT_MAX_BYTES = env_int("ATTACHMENT_MAX_BYTES", 8 * 1024 * 1024, minimum=64 * 1024)
ATTACHMENTS_PER_MISSION = env_int("ATTACHMENTS_PER_MISSION", 5, minimum=1)
ATTACHMENT_TEXT_CHARS = env_int("ATTACHMENT_TEXT_CHARS", 200_000, minimum=1_000)
ATTACHMENT_PROMPT_CHARS = env_int("ATTACHMENT_PROMPT_CHARS", 8_000, minimum=500)
# The models that are given a mission's images (glob patterns of model names); any other
# model is told an image was attached, by name.
IMAGE_MODELS = env_list("IMAGE_MODELS", ["gpt-4o*", "gpt-4.1*", "gpt-5*", "o3*", "o4*"])
# Largest WebSocket frame the consumer reads (Daphne itself accepts up to 1 MiB).
MAX_FRAME_BYTES = env_int("MAX_FRAME_BYTES", 64 * 1024, minimum=1024)
# How often an open socket checks that its login still holds, besides on every frame and
# the close sent when it ends (realtime.login_bound): the longest a socket whose close was
# missed goes on receiving. One query pair per socket per period.
SOCKET_LOGIN_RECHECK_SECONDS = env_int("SOCKET_LOGIN_RECHECK_SECONDS", 30, minimum=1)
# A running mission whose run gave no sign of life (its claim, then a heartbeat every
# MISSION_HEARTBEAT_INTERVAL seconds while it waits on the model) for this long was
# abandoned by a dead worker: the sweeper re-queues it or, out of attempts, fails it.
MISSION_HEARTBEAT_INTERVAL = env_int("MISSION_HEARTBEAT_INTERVAL", 10, minimum=1)
MISSION_STUCK_AFTER = env_int("MISSION_STUCK_AFTER", 45, minimum=3)
if MISSION_STUCK_AFTER < 3 * MISSION_HEARTBEAT_INTERVAL:
    raise EnvError(
        "MISSION_STUCK_AFTER must be at least 3 × MISSION_HEARTBEAT_INTERVAL "
        f"({MISSION_STUCK_AFTER} < 3 × {MISSION_HEARTBEAT_INTERVAL}): a live reply would "
        "look abandoned and be answered twice."
    )
# A mission queued this long without starting is sent to the queue again.
MISSION_QUEUED_RESEND_AFTER = env_int("MISSION_QUEUED_RESEND_AFTER", 120, minimum=10)
MISSION_MAX_ATTEMPTS = env_int("MISSION_MAX_ATTEMPTS", 3, minimum=1)
# Instructions one user may send per window (0 turns the limit off), WebSocket and API.
INSTRUCTION_RATE_LIMIT = env_int("INSTRUCTION_RATE_LIMIT", 30, minimum=0)
INSTRUCTION_RATE_WINDOW = env_int("INSTRUCTION_RATE_WINDOW", 60, minimum=1)
# How many missions one instruction may start: follow-ups of one set of meeting notes, and
# employees one master-channel instruction delegates to. Beyond, the instruction is refused.
# Within, each of those missions counts against INSTRUCTION_RATE_LIMIT like the instruction.
MAX_FOLLOWUPS_PER_INSTRUCTION = env_int("MAX_FOLLOWUPS_PER_INSTRUCTION", 20, minimum=1)
MAX_DELEGATES = env_int("MAX_DELEGATES", 6, minimum=1)
# A model that calls tools may search the office's earlier missions and read one in full
# (missions.lookup), at most this many rounds of calls per reply (0 turns it off).
HISTORY_TOOL_ROUNDS = env_int("HISTORY_TOOL_ROUNDS", 3, minimum=0)
# Seconds after a plan started its delegated missions before it is summed up with
# whatever has come back (the sweeper checks; later results bring a new synthesis).
PLAN_TIMEOUT = env_int("PLAN_TIMEOUT", 600, minimum=1)
SWEEP_INTERVAL = env_int("SWEEP_INTERVAL", 60, minimum=5)
# Run by Celery beat in production and by the web process's own timer in the embedded
# default (config.celery.start_embedded_beat).
CELERY_BEAT_SCHEDULE = {
    # Often enough that an abandoned reply is re-queued soon after MISSION_STUCK_AFTER.
    "sweep-stuck-missions": {
        "task": "missions.tasks.mission_sweep_stuck",
        "schedule": float(min(SWEEP_INTERVAL, max(5, MISSION_STUCK_AFTER // 3))),
    },
    "sweep-lagging-folds": {
        "task": "summaries.tasks.summary_sweep_lagging",
        "schedule": float(SWEEP_INTERVAL),
    },
    "index-missing-passages": {
        "task": "context.tasks.passages_sweep",
        "schedule": float(SWEEP_INTERVAL),
    },
    # Passages and memory items without a vector of MEANING_MODEL (a lost task, a change
    # of model): embedded a batch at a time.
    "embed-missing-vectors": {
        "task": "context.tasks.vectors_sweep",
        "schedule": float(SWEEP_INTERVAL),
    },
}

# --- Auth, i18n, static -----------------------------------------------------------------
# Off for private deployments: only an admin creates accounts.
SIGNUP_ENABLED = env_bool("SIGNUP_ENABLED", default=True)
# Throttles (office.auth). Log-in attempts (a right password is given back) — the form,
# the admin, HTTP Basic and the password-change form alike — in sliding windows, counted
# before any password is hashed; once over, attempts are refused unhashed. Each source (a
# known device, else the address) has its own budget per account; a source the account
# never logged in from also spends the account's budget for unknown sources and its
# address's across accounts. Sign-ups per address, new sessions per user. 0 turns one off.
LOGIN_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 10, minimum=0)
LOGIN_FAILURE_SOURCE_LIMIT = env_int("LOGIN_FAILURE_SOURCE_LIMIT", 5, minimum=0)
LOGIN_FAILURE_ADDRESS_LIMIT = env_int("LOGIN_FAILURE_ADDRESS_LIMIT", 50, minimum=0)
LOGIN_FAILURE_WINDOW = env_int("LOGIN_FAILURE_WINDOW", 900, minimum=1)
# How long a browser that logged in stays a known device of that account, and an address
# a right password came from a known address of it: their attempts there are held to
# their own budget alone, so others' guesses never lock the owner out.
LOGIN_DEVICE_MAX_AGE = env_int("LOGIN_DEVICE_MAX_AGE", 90 * 24 * 3600, minimum=60)
SIGNUP_RATE_LIMIT = env_int("SIGNUP_RATE_LIMIT", 5, minimum=0)
SIGNUP_RATE_WINDOW = env_int("SIGNUP_RATE_WINDOW", 3600, minimum=1)
HIRE_RATE_LIMIT = env_int("HIRE_RATE_LIMIT", 20, minimum=0)
HIRE_RATE_WINDOW = env_int("HIRE_RATE_WINDOW", 3600, minimum=1)
# Invitations an owner may make per window; how long a link works; how many people (the
# owner included) an office holds.
INVITE_RATE_LIMIT = env_int("INVITE_RATE_LIMIT", 20, minimum=0)
INVITE_RATE_WINDOW = env_int("INVITE_RATE_WINDOW", 3600, minimum=1)
INVITE_DAYS = env_int("INVITE_DAYS", 7, minimum=1)
OFFICE_MAX_PEOPLE = env_int("OFFICE_MAX_PEOPLE", 50, minimum=1)
# Projects one user may open, and memory items one user may write (remembered or
# superseding another) through the API, per window: each is a row in every prompt after.
PROJECT_RATE_LIMIT = env_int("PROJECT_RATE_LIMIT", 20, minimum=0)
PROJECT_RATE_WINDOW = env_int("PROJECT_RATE_WINDOW", 3600, minimum=1)
MEMORY_RATE_LIMIT = env_int("MEMORY_RATE_LIMIT", 100, minimum=0)
MEMORY_RATE_WINDOW = env_int("MEMORY_RATE_WINDOW", 3600, minimum=1)
SESSION_NEW_RATE_LIMIT = env_int("SESSION_NEW_RATE_LIMIT", 10, minimum=0)
SESSION_NEW_RATE_WINDOW = env_int("SESSION_NEW_RATE_WINDOW", 60, minimum=1)
AUTHENTICATION_BACKENDS = ["office.auth.ThrottledModelBackend"]
# Password-reset e-mails need a mail server: without EMAIL_HOST the reset pages are not
# routed at all; with it, requests are limited per address and per recipient (whatever
# address asks, one inbox gets at most PASSWORD_RESET_RECIPIENT_LIMIT per window).
EMAIL_HOST = env_str("EMAIL_HOST", "")
if EMAIL_HOST:
    EMAIL_PORT = env_int("EMAIL_PORT", 587, minimum=1)
    EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", "")
    EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD", "")
    EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", default=True)
    DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "office@localhost")
PASSWORD_RESET_ENABLED = bool(EMAIL_HOST)
PASSWORD_RESET_RATE_LIMIT = env_int("PASSWORD_RESET_RATE_LIMIT", 5, minimum=0)
PASSWORD_RESET_RATE_WINDOW = env_int("PASSWORD_RESET_RATE_WINDOW", 3600, minimum=1)
PASSWORD_RESET_RECIPIENT_LIMIT = env_int("PASSWORD_RESET_RECIPIENT_LIMIT", 3, minimum=0)
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/accounts/login/"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LANGUAGE_CODE = env_choice("LANGUAGE_CODE", "en", ("en", "ko"))
LANGUAGES = [("en", "English"), ("ko", "한국어")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = env_str("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
# Daphne serves static files itself (config/asgi.py); turn off behind a CDN or proxy.
SERVE_STATIC = env_bool("SERVE_STATIC", default=True)

# --- Production hardening ------------------------------------------------------------
if PRODUCTION:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", default=True)
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31_536_000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=True)
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", default=True)
    if env_bool("SECURE_PROXY_SSL_HEADER", default=False):
        SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    # One line per task run or per model request is noise (and CPU on a busy process);
    # failures are still logged at WARNING and ERROR.
    "loggers": {
        name: {"level": "WARNING"} for name in ("celery.app.trace", "httpx", "httpx2", "httpcore")
    },
    "root": {
        "handlers": ["console"],
        "level": env_choice("LOG_LEVEL", "info", ("debug", "info", "warning", "error")).upper(),
    },
}
