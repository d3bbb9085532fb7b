"""Errors the engine raises: authoring mistakes and block failures, each with a location."""

from __future__ import annotations


class GuideError(Exception):
    """Base class: every error the engine raises on purpose."""


class AuthoringError(GuideError):
    """A mistake in a page or snippet file: names the file, the line and the fix."""

    def __init__(self, path: str, line: int, problem: str, fix: str = ""):
        self.path, self.line, self.problem, self.fix = path, line, problem, fix
        text = f"{path}:{line}: {problem}"
        if fix:
            text += f"\n  fix: {fix}"
        super().__init__(text)


class BlockFailed(GuideError):
    """A block that did not behave as its page says it should."""

    def __init__(self, where: str, reason: str, details: str = ""):
        self.where, self.reason, self.details = where, reason, details
        text = f"{where}: {reason}"
        if details:
            text += "\n" + details
        super().__init__(text)


class BuildInterrupted(GuideError):
    """The build was stopped by SIGINT or SIGTERM; every started process was ended."""
