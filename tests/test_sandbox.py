"""`Sandbox.client` and `async_client` take the key `issue_api_key` returned."""

from __future__ import annotations

import pytest

from pixops.sandbox import Sandbox


@pytest.mark.parametrize("make", ["client", "async_client"])
def test_a_client_needs_the_issued_key_not_its_text(make: str) -> None:
    sandbox = Sandbox()
    merchant = sandbox.create_merchant("Loja Exemplo", balance_centavos=1_000)
    key = sandbox.issue_api_key(merchant.id, permissions=["account:read"])
    with pytest.raises(TypeError, match="takes the ApiKey that issue_api_key\\(\\) returned"):
        getattr(sandbox, make)(key.client_id)
    client = getattr(sandbox, make)(key)
    assert client.client_id == key.client_id
