"""Where a fuzz campaign keeps its examples: a directory or a Redis server (``--database``).

**Locations.** ``open_database(location)`` opens ``redis://HOST:PORT/DB`` (or ``rediss://``,
TLS) as Hypothesis's ``RedisExampleDatabase`` on that server, and anything else as a directory
(``DirectoryBasedExampleDatabase``). Every worker of a campaign, local or on a Dask cluster,
opens the same location, so a failure one of them saved is replayed by all of them on the next
run. A directory is shared only by processes that see the same file system; Redis is shared by
every machine that reaches the server. Redis keys are prefixed ``relay-fuzz:``, and (Hypothesis's
default) expire after eight days without use.

**Durability.** Hypothesis saves a failing example to the database as soon as the test body
raises on it, and again at every step of shrinking (an older step moves to the secondary key).
A directory database writes each entry to a temporary file and renames it into place; a Redis
entry is one ``SADD``. So a campaign killed with SIGKILL at any moment leaves every failure it
had found in the database, at the smallest program it had shrunk it to, and no half-written
entry. ``ResumingDatabase`` replays the saved failures first on the next run.

**Steering.** A failure is saved under a key that includes the steering of the round that found
it (``fuzz.Steering.digest``), so the steerings under which failures were found are kept in the
database too (``save_steering``, under a key of the pass's own): a rerun replays a round under
each of them first (``saved_steerings``), and forgets one whose round found nothing
(``forget_steering``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from hypothesis.database import DirectoryBasedExampleDatabase, ExampleDatabase

if TYPE_CHECKING:
    from .fuzz import Steering

REDIS_SCHEMES = ("redis://", "rediss://")
REDIS_PREFIX = b"relay-fuzz:"
STEERING_KEY = b"relay-fuzz-steering:"


class DatabaseError(Exception):
    """A ``--database`` that cannot be opened (bad usage: exit 2 at the command line)."""


def is_redis(location: str | Path) -> bool:
    """Whether ``location`` names a Redis server rather than a directory."""
    return str(location).startswith(REDIS_SCHEMES)


def open_database(location: str | Path) -> ExampleDatabase:
    """The example database at ``location`` (see the module docstring); ``DatabaseError`` if
    it is a Redis URL that is malformed, cannot be reached, or needs the missing ``redis``
    package, or a path that exists and is not a directory."""
    text = str(location)
    if is_redis(text):
        return _open_redis(text)
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise DatabaseError(f"--database {text}: exists and is not a directory")
    return DirectoryBasedExampleDatabase(text)


def _open_redis(url: str) -> ExampleDatabase:
    try:
        import redis
        from hypothesis.extra.redis import RedisExampleDatabase
    except ImportError:
        raise DatabaseError(
            f"--database {url} needs the redis package: pip install 'relay-ref[distributed]'"
        ) from None
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=5)
        client.ping()
    except ValueError as err:
        raise DatabaseError(f"--database {url}: not a Redis URL ({err})") from None
    except redis.exceptions.RedisError as err:
        raise DatabaseError(f"--database {url}: cannot reach the Redis server: {err}") from None
    return RedisExampleDatabase(client, key_prefix=REDIS_PREFIX)


def check_location(location: str | Path) -> None:
    """Open and close ``location`` once, so that a bad ``--database`` is reported before a
    campaign starts (``DatabaseError``)."""
    db = open_database(location)
    redis_client = getattr(db, "redis", None)
    if redis_client is not None:
        redis_client.close()


class ResumingDatabase(ExampleDatabase):
    """An example database with its saved failures handed to Hypothesis as secondary
    entries: Hypothesis does not shrink a failure it finds exactly as saved under the primary
    key (its fast path assumes it was shrunk fully), so a campaign stopped while shrinking would
    report the partly shrunk program on every rerun. As a secondary entry it is replayed
    first and shrunk again, from where the stopped campaign left it.

    ``on_save(key)`` is called after each entry saved under a primary key (a failing example,
    once it is in the database)."""

    def __init__(
        self, inner: ExampleDatabase, on_save: Callable[[bytes], None] | None = None
    ) -> None:
        super().__init__()
        self.inner = inner
        self.on_save = on_save

    def fetch(self, key: bytes) -> Iterable[bytes]:
        """The entries under ``key``; the primary ones under the secondary key instead."""
        if key.endswith(b".secondary"):
            yield from self.inner.fetch(key[: -len(b".secondary")])
            yield from self.inner.fetch(key)
        elif key.endswith(b".pareto"):
            yield from self.inner.fetch(key)

    def save(self, key: bytes, value: bytes) -> None:
        """Save in the inner database, then tell ``on_save`` of a primary entry."""
        self.inner.save(key, value)
        if self.on_save is not None and not key.endswith((b".secondary", b".pareto")):
            self.on_save(key)

    def delete(self, key: bytes, value: bytes) -> None:
        """Delete from the inner database."""
        self.inner.delete(key, value)

    def move(self, src: bytes, dest: bytes, value: bytes) -> None:
        """Move within the inner database."""
        self.inner.move(src, dest, value)


def _steering_key(spec: str) -> bytes:
    return STEERING_KEY + hashlib.sha256(spec.encode()).hexdigest()[:16].encode()


def saved_steerings(db: ExampleDatabase, spec: str) -> list[Steering]:
    """The steerings under which failures of ``spec`` were found, in a fixed order (entries
    that do not parse are skipped)."""
    from .fuzz import Steering

    out: list[Steering] = []
    for raw in sorted(db.fetch(_steering_key(spec))):
        try:
            out.append(Steering.from_json(raw.decode("utf-8")))
        except (UnicodeDecodeError, ValueError, KeyError, TypeError):
            continue
    return out


def save_steering(db: ExampleDatabase, spec: str, steering: Steering) -> None:
    """Keep ``steering`` as one under which a failure of ``spec`` was found."""
    db.save(_steering_key(spec), steering.to_json().encode("utf-8"))


def forget_steering(db: ExampleDatabase, spec: str, steering: Steering) -> None:
    """Forget ``steering`` for ``spec`` (its replayed round found nothing)."""
    db.delete(_steering_key(spec), steering.to_json().encode("utf-8"))


__all__ = [
    "DatabaseError",
    "ResumingDatabase",
    "check_location",
    "forget_steering",
    "is_redis",
    "open_database",
    "save_steering",
    "saved_steerings",
]
