"""The password hasher of the test processes (tests/conftest.py)."""

from django.contrib.auth.hashers import PBKDF2PasswordHasher


class OneRoundPBKDF2PasswordHasher(PBKDF2PasswordHasher):
    """Django's PBKDF2 with one round instead of a million: a hash it stores names its
    rounds, so the servers the tests start (production's hasher, on the same database)
    check it as they check any other, and upgrade it on a right log-in."""

    iterations = 1
