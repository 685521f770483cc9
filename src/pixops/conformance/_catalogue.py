"""Every check, in run order, each naming the rule of `docs/api.md` it measures.

The expected answers are the spec's: the messages of the Error shapes table and the
pipeline, as the reference engine (the sandbox) gives them byte for byte. Nothing here
moves money or changes state: a POST that would act is sent only in a form the spec
refuses before anything is written, and each such body also carries a second fault
(a PIX key no directory can hold, a zero amount), so a service that skipped the rule
under test would still refuse it. The checks marked `writes` run only with `--write`.
"""

from __future__ import annotations

from typing import Final

from pixops.conformance._checks_conventions import (
    camel_case_answers,
    check_openapi,
    clock_skew,
    rate_limit,
    time_format,
)
from pixops.conformance._checks_queries import (
    check_method_not_allowed,
    check_pagination,
    date_filter,
    lookup,
    page_echo,
    status_filter,
    unknown_404,
)
from pixops.conformance._checks_requests import (
    UNKNOWN_FIELD_WANT,
    check_refusal,
    check_replayed,
    content_type_refused,
    cpf_validate,
    float_amount,
    nothing_written,
    order_content_type_first,
    permission_refused,
    reused_with_another_body,
    unknown_field,
)
from pixops.conformance._checks_write import charge_created, charge_listed, charge_replayed
from pixops.conformance._expect import (
    compact,
    exact,
    seen,
    shaped,
)
from pixops.conformance._model import Check, Finding, Probe
from pixops.conformance._rules import (
    BAD_KEY_CASE,
    BUSINESS,
    CONTENT_TYPE,
    CPF_BODY,
    CREDENTIALS,
    ENDPOINTS,
    IDEMPOTENCY,
    INTEGERS,
    INVALID_CREDENTIALS,
    KEYS,
    MAX_SKEW_SECONDS,
    MISSING_CREDENTIALS,
    MISSING_ID,
    NO_SUCH_KEY,
    NOWHERE,
    OPENAPI,
    ORDER,
    PERMISSION,
    RATE_LIMIT,
    SCHEMAS,
    SIGNATURE,
    TIME,
    UNSUPPORTED,
    WRITE_CHARGE_EXPIRES_IN,
    bad_request_body,
    detail_body,
)

__all__ = ["CHECKS", "CHECK_NAMES"]


def _catalogue() -> tuple[Check, ...]:
    key_case = (("x-key-case", "kebab-case"),)
    return (
        Check(
            "openapi-public",
            OPENAPI,
            "GET /openapi.json, no Authorization",
            "HTTP 200, an OpenAPI 3.1 document with every operation of the Endpoints table",
            check_openapi,
            needs_key=False,
        ),
        exact(
            "credentials-missing",
            CREDENTIALS,
            Probe("GET", "/balance", auth="none"),
            401,
            MISSING_CREDENTIALS,
            needs_key=False,
        ),
        exact(
            "credentials-wrong-secret",
            CREDENTIALS,
            Probe("GET", "/balance", auth="wrong-secret"),
            401,
            INVALID_CREDENTIALS,
        ),
        Check(
            "credentials-basic",
            "Conventions / credentials (or Basic base64(id:secret))",
            "GET /balance, Basic credentials",
            "HTTP 200",
            lambda s: (lambda a: Finding(a.status == 200, seen(a)))(
                s.send(Probe("GET", "/balance", auth="basic"))
            ),
        ),
        exact(
            "hmac-missing",
            SIGNATURE,
            Probe("POST", "/cpf/validate", CPF_BODY, sign="none"),
            401,
            detail_body("Missing HMAC header"),
        ),
        exact(
            "hmac-invalid",
            SIGNATURE,
            Probe("POST", "/cpf/validate", CPF_BODY, sign="wrong"),
            401,
            detail_body("Invalid HMAC signature"),
        ),
        Check(
            "permission-refused",
            PERMISSION,
            "one read, or one POST that validation refuses, per permission, until one is 403",
            'HTTP 403 {"error":"forbidden","message":"API key lacks permission: <the route\'s>"}',
            permission_refused,
        ),
        Check(
            "order-content-type-first",
            ORDER + " (content type first)",
            "POST /cpf/validate, text/plain, X-Key-Case: kebab-case, no Authorization",
            f"HTTP 415 {UNSUPPORTED}",
            order_content_type_first,
            needs_key=False,
        ),
        exact(
            "order-key-case-before-credentials",
            ORDER + " (X-Key-Case, then credentials)",
            Probe("GET", "/balance", auth="none", headers=key_case),
            400,
            BAD_KEY_CASE,
            needs_key=False,
        ),
        exact(
            "order-credentials-before-hmac",
            ORDER + " (credentials, then HMAC)",
            Probe("POST", "/cpf/validate", CPF_BODY, auth="wrong-secret", sign="wrong"),
            401,
            INVALID_CREDENTIALS,
        ),
        exact(
            "order-hmac-before-idempotency",
            ORDER + " (HMAC, then idempotency)",
            Probe("POST", "/cpf/validate", CPF_BODY, sign="wrong", idempotency_key="k" * 257),
            401,
            detail_body("Invalid HMAC signature"),
        ),
        exact(
            "order-credentials-before-routing",
            ORDER + " (credentials before any route)",
            Probe("GET", NOWHERE, auth="none"),
            401,
            MISSING_CREDENTIALS,
            needs_key=False,
        ),
        Check(
            "content-type-refused",
            CONTENT_TYPE,
            "POST /cpf/validate, Content-Type: text/plain",
            f'HTTP 415 {{"error":{{"status":415,"message":"{UNSUPPORTED}",'
            '"hint":"…text/plain…"}}',
            content_type_refused,
        ),
        exact(
            "key-case-invalid",
            KEYS,
            Probe("GET", "/balance", headers=key_case),
            400,
            BAD_KEY_CASE,
        ),
        exact(
            "idempotency-key-too-long",
            IDEMPOTENCY + " (at most 256 characters)",
            Probe("POST", "/cpf/validate", CPF_BODY, idempotency_key="k" * 257),
            400,
            {"error": {"status": 400, "message": "Idempotency-Key must be at most 256 characters"}},
        ),
        Check(
            "cpf-validate",
            ENDPOINTS + " / POST /cpf/validate",
            "POST /cpf/validate, signed, a valid and an invalid CPF",
            'HTTP 200 {"worked":true,"data":{"cpf":…,"valid":true}} and valid false',
            cpf_validate,
        ),
        Check(
            "idempotent-replay",
            IDEMPOTENCY + " (a replay returns the first 2xx byte for byte)",
            "POST /cpf/validate twice with one Idempotency-Key",
            "the same status and bytes, X-Idempotent-Replay: true, the key echoed",
            check_replayed,
        ),
        Check(
            "idempotency-key-reused",
            SCHEMAS + " (an Idempotency-Key reused with another body)",
            "POST /cpf/validate, then another CPF with the same Idempotency-Key",
            "HTTP 422 Idempotency-Key was already used with a different request body",
            reused_with_another_body,
        ),
        check_refusal(
            "cashout-invalid-key-type",
            SCHEMAS + " (pix_key_type)",
            {"amount": 1, "pix_key": NO_SUCH_KEY, "pix_key_type": "carrier_pigeon"},
            bad_request_body("invalid pix_key_type"),
        ),
        check_refusal(
            "cashout-negative-amount",
            "Conventions / money (centavos)",
            {"amount": -100, "pix_key": NO_SUCH_KEY},
            bad_request_body("invalid or missing amount"),
        ),
        Check(
            "cashout-float-amount",
            INTEGERS + " (356.0 is a 400)",
            'POST /pix/cash-out {"amount":100.0,…} (an invalid key too)',
            f"HTTP 400 {compact(bad_request_body('invalid or missing amount'))}",
            float_amount,
        ),
        Check(
            "cashin-unknown-field",
            ENDPOINTS + " / POST /pix/cash-in (its request schema is closed)",
            'POST /pix/cash-in {"amount":0,"conformance_probe":true,…}',
            f"HTTP 400 {compact(UNKNOWN_FIELD_WANT)}",
            unknown_field,
        ),
        check_refusal(
            "camel-case-requests",
            KEYS + " (request keys)",
            {"amount": 1, "pix_key": NO_SUCH_KEY, "pix_key_type": "carrier_pigeon"},
            bad_request_body("invalid pix_key_type", "badRequest"),
            camel=True,
        ),
        Check(
            "refusals-write-nothing",
            SCHEMAS + " (a refusal writes nothing)",
            "GET /transactions/ref/<the probes' external_id>",
            "HTTP 200 with no transaction",
            nothing_written,
        ),
        exact(
            "camel-case-errors",
            KEYS + " (error bodies too)",
            Probe("POST", "/cpf/validate", {}, headers=(("x-key-case", "camelCase"),)),
            400,
            bad_request_body({"cpf": ["is required"]}, "badRequest"),
        ),
        Check(
            "camel-case-answers",
            KEYS + " (response keys)",
            "GET /balance and /statement?per_page=1, without and with X-Key-Case: camelCase",
            "the same fields, every key camelCase",
            camel_case_answers,
        ),
        shaped("balance", ENDPOINTS + " / GET /balance", Probe("GET", "/balance")),
        shaped(
            "transactions-list",
            ENDPOINTS + " / GET /transactions",
            Probe("GET", "/transactions?per_page=2"),
            also=page_echo(1, 2),
        ),
        shaped(
            "statement",
            ENDPOINTS + " / GET /statement",
            Probe("GET", "/statement?per_page=2"),
            also=page_echo(1, 2),
        ),
        Check(
            "statement-pagination",
            ENDPOINTS + " / GET /statement (page, per_page)",
            "GET /statement?per_page=1&page=1, then page=2",
            "pages echoed, at most one item each, not the same item",
            check_pagination,
        ),
        Check(
            "statement-status-filter",
            ENDPOINTS + " / GET /statement (status filter)",
            "GET /statement?status=settled&per_page=20",
            "HTTP 200, only settled items",
            status_filter,
        ),
        Check(
            "statement-date-filter",
            ENDPOINTS + " / GET /statement (date_from, date_to)",
            "GET /statement?date_from=D&date_to=D for a day D with a transaction",
            "HTTP 200, only items created on D, that transaction among them",
            date_filter,
        ),
        exact(
            "statement-dates-reversed",
            SCHEMAS + " (date_from after date_to is a 400)",
            Probe("GET", "/statement?date_from=2026-01-02&date_to=2026-01-01"),
            400,
            bad_request_body({"date_from": ["must not be after date_to"]}),
        ),
        lookup(
            "transaction-by-id",
            ENDPOINTS + " / GET /transactions/:id",
            lambda t: f"/transactions/{t.get('transaction_id')}",
            "GET /transactions/<a settled transaction from the statement>",
            "transaction_id",
        ),
        lookup(
            "transaction-by-e2e",
            ENDPOINTS + " / GET /transactions/e2e/:e2e_id",
            lambda t: f"/transactions/e2e/{t.get('end_to_end_id')}",
            "GET /transactions/e2e/<its end_to_end_id>",
            "end_to_end_id",
        ),
        lookup(
            "receipt",
            ENDPOINTS + " / GET /transactions/:id/receipt",
            lambda t: f"/transactions/{t.get('transaction_id')}/receipt",
            "GET /transactions/<a settled transaction>/receipt",
            "transaction_id",
        ),
        shaped(
            "transactions-by-tag",
            ENDPOINTS + " / GET /transactions/tag/:tag",
            Probe("GET", "/transactions/tag/pixops-conformance-tag"),
        ),
        shaped(
            "transactions-by-ref",
            ENDPOINTS + " / GET /transactions/ref/:external_id",
            Probe("GET", "/transactions/ref/pixops-conformance-ref"),
        ),
        unknown_404("transaction-unknown", f"/transactions/{MISSING_ID}", "detail"),
        shaped("webhooks-list", ENDPOINTS + " / GET /webhooks", Probe("GET", "/webhooks")),
        shaped(
            "med-list",
            ENDPOINTS + " / GET /med",
            Probe("GET", "/med?per_page=5"),
            also=page_echo(1, 5),
        ),
        unknown_404("med-unknown", f"/med/{MISSING_ID}", "not_found"),
        shaped("pix-keys", ENDPOINTS + " / GET /pix/keys", Probe("GET", "/pix/keys")),
        unknown_404("unknown-route", NOWHERE, "not_found"),
        Check(
            "method-not-allowed",
            BUSINESS + " (method_not_allowed 405)",
            "DELETE /balance",
            'HTTP 405 {"worked":false,"errors":{"method_not_allowed":"…"}}, Allow: GET',
            check_method_not_allowed,
        ),
        Check(
            "rate-limit-headers",
            RATE_LIMIT,
            "GET /transactions?per_page=1 twice, GET /balance",
            "X-RateLimit-Remaining counts down; none on GET /balance (not rate-limited)",
            rate_limit,
        ),
        Check(
            "served-time",
            TIME,
            "GET /balance",
            "as_of in ISO 8601 UTC with ms and Z; the Date header, when sent, an HTTP date",
            time_format,
        ),
        Check(
            "clock-skew",
            TIME + " (the served time against this machine's clock)",
            "GET /balance (read once with served-time)",
            f"within {MAX_SKEW_SECONDS:.0f} s of this machine's clock",
            clock_skew,
        ),
        Check(
            "qr-charge-created",
            ENDPOINTS + " / POST /pix/cash-in",
            f"POST /pix/cash-in: a R$ 0,01 QR charge expiring in {WRITE_CHARGE_EXPIRES_IN} s,"
            " left unpaid",
            "HTTP 201 in the schema, status pending, amount 100 base units",
            charge_created,
            writes=True,
        ),
        Check(
            "qr-charge-replayed",
            IDEMPOTENCY + " (on a POST that creates)",
            "the same POST /pix/cash-in again, with its Idempotency-Key",
            "the first 201 byte for byte, X-Idempotent-Replay: true, no second charge",
            charge_replayed,
            writes=True,
        ),
        Check(
            "qr-charge-listed",
            ENDPOINTS + " / GET /transactions/ref/:external_id and /transactions/:id",
            "GET /transactions/ref/<its external_id>, GET /transactions/<its id>",
            "exactly the one charge, pending",
            charge_listed,
            writes=True,
        ),
    )


CHECKS: Final[tuple[Check, ...]] = _catalogue()
CHECK_NAMES: Final = tuple(check.name for check in CHECKS)
assert len(set(CHECK_NAMES)) == len(CHECK_NAMES), "a check name is used twice"
