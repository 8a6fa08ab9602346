"""Errors the services raise, each with a message a person can act on."""

from __future__ import annotations


class ServiceError(Exception):
    """Base: the message is shown to the user as it is."""


class InvalidInput(ServiceError):
    def __init__(self, message: str, fields: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.fields = fields or {}


class NotFound(ServiceError):
    pass


class InvalidState(ServiceError):
    """The action does not fit the run's state (e.g. approving a running run)."""


class StaleRun(ServiceError):
    """Someone (a person or the supervisor) changed the run since the caller read it."""

    def __init__(self, message: str = "This run changed since you opened it. Reload to see "
                 "the latest version; nothing was saved.") -> None:
        super().__init__(message)


class ApprovalBlocked(ServiceError):
    """A blocking flag is open on the version; approval needs an override reason."""

    def __init__(self, message: str, flags: list[str]) -> None:
        super().__init__(message)
        self.flags = flags


class PermissionDenied(ServiceError):
    """The person's roles do not allow this act (engine/identity.py)."""
