"""What the model server charges, as the operator sets it: the cost view turns tokens
into money with it (docs/design.md §8)."""

from decimal import Decimal

from django.core.validators import MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

PER_TOKENS = 1_000_000


class ModelPrice(models.Model):
    """The price of one model per million tokens. Cached prompt tokens are the part of a
    prompt the server had seen before (the same beginning sent again) and bills at its
    cached rate; left empty, they cost what other prompt tokens cost."""

    model = models.CharField(_("model"), max_length=100, unique=True)
    currency = models.CharField(_("currency"), max_length=3, default="USD")
    prompt = models.DecimalField(
        _("prompt tokens, per million"),
        max_digits=12,
        decimal_places=4,
        validators=[MinValueValidator(Decimal(0))],
    )
    cached_prompt = models.DecimalField(
        _("cached prompt tokens, per million"),
        max_digits=12,
        decimal_places=4,
        null=True,
        blank=True,
        validators=[MinValueValidator(Decimal(0))],
    )
    completion = models.DecimalField(
        _("completion tokens, per million"),
        max_digits=12,
        decimal_places=4,
        validators=[MinValueValidator(Decimal(0))],
    )

    class Meta:
        verbose_name = _("model price")
        verbose_name_plural = _("model prices")
        ordering = ["model"]

    def __str__(self) -> str:
        return self.model

    def cost(self, *, prompt_tokens: int, cached_tokens: int, completion_tokens: int) -> Decimal:
        """What these tokens cost; `cached_tokens` are part of `prompt_tokens`."""
        cached = min(cached_tokens, prompt_tokens)
        cached_rate = self.prompt if self.cached_prompt is None else self.cached_prompt
        total = (
            (prompt_tokens - cached) * self.prompt
            + cached * cached_rate
            + completion_tokens * self.completion
        )
        return total / PER_TOKENS
