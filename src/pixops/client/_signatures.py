"""A call that does not fit a method's signature is a `SignatureError`, naming the method
as the caller wrote it (`client.pix.cash_in`) and the arguments it takes.

Python raises a bare `TypeError` for a missing, extra or misspelt argument, naming the
defining class (`_Listing.list() takes 1 positional argument`); a notebook then shows an
error that is not a `pixops.PixopsError` and a class the user never met. The wrapper
costs nothing on a good call: the signature is only consulted once a `TypeError` has
been raised, and a `TypeError` from inside a method whose arguments fit passes unchanged.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from pixops.client._errors import SignatureError

__all__ = ["check_signatures"]

C = TypeVar("C", bound=type)


def _arguments(signature: inspect.Signature) -> str:
    """`(original_transaction_id, amount_centavos=None, ..., *, amount=None)`."""
    parts: list[str] = []
    star = False
    for parameter in list(signature.parameters.values())[1:]:
        if parameter.kind is parameter.VAR_KEYWORD:
            parts.append(f"**{parameter.name}")
            continue
        if parameter.kind is parameter.KEYWORD_ONLY and not star:
            parts.append("*")
            star = True
        default = parameter.default
        shown = "" if default is parameter.empty else f"={default!r}"
        parts.append(f"{parameter.name}{shown}")
    return f"({', '.join(parts)})"


def _label(owner: object, name: str, namespaced: bool) -> str:
    if isinstance(owner, type):
        return f"pixops.{owner.__name__}.{name}"
    if name == "__init__":
        return f"pixops.{type(owner).__name__}"
    if namespaced:
        return f"client.{type(owner).__name__.lower()}.{name}"
    return f"client.{name}"


def _refusal(
    function: Callable[..., Any],
    signature: inspect.Signature,
    namespaced: bool,
    args: Any,
    kwargs: Any,
) -> SignatureError | None:
    """The `SignatureError` when the arguments do not fit, else None."""
    try:
        signature.bind(*args, **kwargs)
    except TypeError as exc:
        label = _label(args[0] if args else None, function.__name__, namespaced)
        return SignatureError(f"{label}(): {exc}; it takes {_arguments(signature)}")
    return None


def _checked(function: Callable[..., Any], namespaced: bool) -> Callable[..., Any]:
    signature = inspect.signature(function)

    if inspect.iscoroutinefunction(function):

        @functools.wraps(function)
        async def checked_async(*args: Any, **kwargs: Any) -> Any:
            try:
                coroutine = function(*args, **kwargs)
            except TypeError:
                refusal = _refusal(function, signature, namespaced, args, kwargs)
                if refusal is not None:
                    raise refusal from None
                raise
            return await coroutine

        return checked_async

    @functools.wraps(function)
    def checked(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except TypeError:
            refusal = _refusal(function, signature, namespaced, args, kwargs)
            if refusal is not None:
                raise refusal from None
            raise

    return checked


def check_signatures(cls: C, *, namespaced: bool = False) -> C:
    """Wrap the public methods (and `__init__`, `from_env`) that `cls` itself defines."""
    for name, member in list(vars(cls).items()):
        if name.startswith("_") and name != "__init__":
            continue
        if isinstance(member, classmethod):
            setattr(cls, name, classmethod(_checked(member.__func__, namespaced)))
        elif inspect.isfunction(member):
            setattr(cls, name, _checked(member, namespaced))
    return cls
