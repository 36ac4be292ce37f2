"""The session endpoint of <agent-chat> on Python's standard library (3.8+, nothing to install).

It trades your API key for a one-hour session token (wire contract §1 and §2):

- the owner comes from your login state, never from the request;
- the service's status and JSON body are passed through, with ``Cache-Control: no-store`` and
  ``Agent-Chat-Owner-Key`` (base64url of HMAC-SHA-256(secret, "agent-chat owner\\n" + owner id),
  ``-`` without owner);
- the API key never follows a redirect, and goes over https only (plain http on localhost);
- one deadline for the whole answer, at most 64 KiB read, and a JSON 502 when the service is
  unreachable, slow, redirects, sends too much or answers something other than JSON;
- at most 20 sessions a minute per client address (IPv6 per /64), 429 with Retry-After.

Make one ``SessionEndpoint`` at start-up and call it from your route:

Flask::

    endpoint = SessionEndpoint(api_key=os.environ["AGENT_CHAT_API_KEY"], project_id="proj_123",
                               base_url="https://agent.example.com")

    @app.post("/api/agent-session")
    def agent_session():
        answer = endpoint.handle("POST", flask_login.current_user.get_id(), request.remote_addr)
        return answer.body, answer.status, answer.headers

Django: ``HttpResponse(answer.body, status=answer.status, headers=dict(answer.headers))``, with
``request.user.pk if request.user.is_authenticated else None`` and ``request.META["REMOTE_ADDR"]``.
FastAPI: ``Response(answer.body, answer.status, dict(answer.headers))`` with
``request.client.host``. Plain WSGI: ``endpoint.wsgi(get_owner_id)`` is an application.

``handle`` blocks for at most ``timeout`` seconds: in an async framework call it through
``await asyncio.to_thread(endpoint.handle, ...)``. The limit counts in this process; with
several worker processes each counts on its own (put a shared limit in your proxy if that
matters).
"""

import base64
import hashlib
import hmac
import http.client
import ipaddress
import json
import logging
import re
import socket
import threading
import time
import urllib.parse
from collections import OrderedDict
from typing import Callable, Iterable, List, NamedTuple, Optional, Tuple

MAX_BODY_BYTES = 64 * 1024
MAX_ADDRESSES = 10_000
_JSON_TYPE = re.compile(r"^application/(?:[\w.+-]+\+)?json\b", re.IGNORECASE)
# What the site must fix (a key, a URL, a service that is down) goes to the site's own log: the
# visitor reads "couldn't start" and the browser shows a status. Without logging configured,
# Python prints warnings to stderr, which every server keeps.
_log = logging.getLogger("agent_chat")
# A service URL ending in /agent/v1 doubles the route, and the service knows no such URL. (A path
# of a proxy in front of the service is fine: the console is under it too.)
_URL_HINT = " Check the service URL: it is the console's address without /console/ (and without /agent/v1)."


class Answer(NamedTuple):
    """What to send back to the browser, as it is."""

    status: int
    headers: List[Tuple[str, str]]
    body: bytes


def owner_key(owner_id: Optional[str], secret: str) -> str:
    """The owner key of wire contract §2: the same value the service and the Node helper compute."""
    if not owner_id:
        return "-"
    mac = hmac.new(secret.encode(), b"agent-chat owner\n" + owner_id.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).rstrip(b"=").decode()


def address_key(address: str) -> Optional[str]:
    """An IPv4 address as it is, an IPv6 address by its /64 (one subscriber holds a whole /64)."""
    try:
        ip = ipaddress.ip_address(address.strip("[] ").split("%")[0])
    except ValueError:
        return None
    if ip.version == 6 and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    if ip.version == 4:
        return str(ip)
    return str(ipaddress.ip_network(f"{ip}/64", strict=False))


def _error(status: int, code: str, detail: str, extra: Iterable[Tuple[str, str]] = ()) -> Answer:
    headers = [
        ("Content-Type", "application/json"),
        ("Cache-Control", "no-store"),
        ("X-Content-Type-Options", "nosniff"),
        *extra,
    ]
    return Answer(status, headers, json.dumps({"detail": detail, "code": code}).encode())


def _is_json(content_type: str, body: bytes) -> bool:
    if not _JSON_TYPE.match(content_type.strip()):
        return False
    try:
        json.loads(body.decode("utf-8"))
        return True
    except ValueError:
        return False


def _is_loopback_ip(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class _Deadline(Exception):
    pass


class _TooLarge(Exception):
    pass


class SessionEndpoint:
    """The site's session endpoint. Make it once: the per-address limit lives in it."""

    def __init__(
        self,
        *,
        api_key: str,
        project_id: str,
        base_url: str,
        owner_key_secret: Optional[str] = None,
        timeout: float = 10.0,
        sessions_per_minute: int = 20,
    ):
        if not api_key or not project_id:
            raise ValueError("[agent-chat] SessionEndpoint needs api_key and project_id.")
        url = urllib.parse.urlsplit(base_url)
        host = (url.hostname or "").lower()
        loopback = host == "localhost" or host.endswith(".localhost") or _is_loopback_ip(host)
        if not host or not (url.scheme == "https" or (url.scheme == "http" and loopback)):
            # Checked once, at start-up: a mistake here should fail at deploy, not per visitor.
            raise ValueError(
                f"[agent-chat] base_url must use https (the API key travels on it); plain http is "
                f"allowed only for localhost. Got {base_url!r}."
            )
        self._api_key = api_key
        self._secret = owner_key_secret or api_key
        self._url = url
        self._path = (
            url.path.rstrip("/")
            + "/agent/v1/projects/"
            + urllib.parse.quote(project_id, safe="")
            + "/agent/sessions/"
        )
        self._timeout = timeout
        self._limit = sessions_per_minute
        self._windows: "OrderedDict[str, List[float]]" = OrderedDict()
        self._lock = threading.Lock()

    def handle(self, method: str, owner_id: Optional[str], client_address: Optional[str]) -> Answer:
        """Mints a session for ``owner_id`` (from your login; None when signed out)."""
        if method.upper() != "POST":
            return _error(405, "method_not_allowed", "Use POST.", [("Allow", "POST")])
        wait = self._rate_limit(client_address)
        if wait is not None:
            return _error(
                429,
                "rate_limited",
                "Too many sessions requested; try again later.",
                [("Retry-After", str(wait))],
            )
        owner = str(owner_id) if owner_id not in (None, "") else None
        try:
            status, headers, body = self._call_service(owner)
        except _TooLarge:
            return self._failed("The agent service answered with an oversized body.")
        except (_Deadline, socket.timeout):
            return self._failed(f"The agent service did not answer within {round(self._timeout * 1000)} ms.")
        except (OSError, http.client.HTTPException) as error:
            return self._failed("The agent service could not be reached.", more=f" ({error})")
        if 300 <= status < 400:
            where = f" (to {headers['location']})" if "location" in headers else ""
            return self._failed("The agent service answered with a redirect, which is not followed.", more=where)
        content_type = headers.get("content-type", "")
        no_body = status in (204, 205, 304)
        if not no_body and not _is_json(content_type, body):
            # An error page of a proxy or load balancer: the widget reads JSON, and the site must
            # not serve that page as its own.
            shown = content_type.split(";")[0].strip() or "no content type"
            retry = [("Retry-After", headers["retry-after"])] if "retry-after" in headers else []
            return self._failed(f"The agent service answered {status} with {shown} instead of JSON.", retry)
        if status >= 400:
            self._log_refusal(status, body)
        out = [("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff")]
        for name in ("Content-Type", "Date", "Retry-After"):
            if name.lower() in headers:
                out.append((name, headers[name.lower()]))
        if 200 <= status < 300:
            out.append(("Agent-Chat-Owner-Key", owner_key(owner, self._secret)))
        return Answer(status, out, b"" if no_body else body)

    def wsgi(self, get_owner_id: Callable[[dict], Optional[str]]):
        """A WSGI application: ``get_owner_id(environ)`` reads your login state."""

        def application(environ, start_response):
            method = environ.get("REQUEST_METHOD", "GET")
            # Behind a reverse proxy REMOTE_ADDR is the proxy: pass the address it vouches for.
            address = environ.get("REMOTE_ADDR")
            answer = self.handle(
                method,
                get_owner_id(environ) if method == "POST" else None,
                address,
            )
            reason = http.client.responses.get(answer.status, "")
            start_response(f"{answer.status} {reason}", answer.headers)
            return [answer.body]

        return application

    def _service_url(self) -> str:
        return f"{self._url.scheme}://{self._url.netloc}{self._path}"

    def _failed(self, detail: str, extra: Iterable[Tuple[str, str]] = (), more: str = "") -> Answer:
        """The JSON 502 for a service that gave no usable answer, and the same in the log."""
        _log.warning("[agent-chat] POST %s failed: %s%s", self._service_url(), detail, more)
        return _error(502, "service_unavailable", detail, extra)

    def _log_refusal(self, status: int, body: bytes) -> None:
        """A refusal of the service (a wrong key or project, a budget spent), in its own words."""
        try:
            answer = json.loads(body)
        except ValueError:
            answer = None
        detail = answer.get("detail") if isinstance(answer, dict) else None
        detail = " ".join(detail.split())[:300] if isinstance(detail, str) else ""
        hint = _URL_HINT if status == 404 else ""
        _log.warning("[agent-chat] POST %s answered %d: %s%s", self._service_url(), status, detail, hint)

    def _rate_limit(self, client_address: Optional[str]) -> Optional[int]:
        """Fixed one-minute windows per address; the seconds to wait, or None to go ahead."""
        key = address_key(client_address) if client_address else None
        if self._limit <= 0 or key is None:
            return None
        now = time.monotonic()
        with self._lock:
            window = self._windows.pop(key, None)
            if window is None or now - window[0] >= 60:
                window = [now, 0]
                # The oldest window goes first: memory stays bounded and new visitors are served.
                while len(self._windows) >= MAX_ADDRESSES:
                    self._windows.popitem(last=False)
            window[1] += 1
            self._windows[key] = window
        if window[1] > self._limit:
            return max(1, int(window[0] + 60 - now + 0.999))
        return None

    def _call_service(self, owner: Optional[str]):
        """POSTs §1 with one deadline for connecting, the headers and the body.

        http.client never follows a redirect: the API key stays with this request.
        """
        deadline = time.monotonic() + self._timeout

        def remaining() -> float:
            left = deadline - time.monotonic()
            if left <= 0:
                raise _Deadline()
            return left

        cls = http.client.HTTPSConnection if self._url.scheme == "https" else http.client.HTTPConnection
        connection = cls(self._url.hostname, self._url.port, timeout=remaining())
        try:
            connection.connect()
            connection.sock.settimeout(remaining())
            body = json.dumps({"external_owner_id": owner}).encode() if owner else None
            headers = {"X-API-Key": self._api_key, "Accept": "application/json"}
            if body is not None:
                headers["Content-Type"] = "application/json"
            connection.request("POST", self._path, body=body, headers=headers)
            connection.sock.settimeout(remaining())
            response = connection.getresponse()
            received = {name.lower(): value for name, value in response.getheaders()}
            declared = received.get("content-length", "")
            if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
                raise _TooLarge()
            chunks = []
            size = 0
            while True:
                connection.sock.settimeout(remaining())
                chunk = response.read1(16 * 1024)
                if not chunk:
                    break
                size += len(chunk)
                if size > MAX_BODY_BYTES:
                    raise _TooLarge()
                chunks.append(chunk)
            return response.status, received, b"".join(chunks)
        finally:
            connection.close()


if __name__ == "__main__":
    # A tiny demo: `AGENT_CHAT_API_KEY=… python3 agent_session.py` serves the endpoint on
    # http://127.0.0.1:8000/ for anonymous visitors (replace the lambda with your login).
    import os
    from wsgiref.simple_server import make_server

    endpoint = SessionEndpoint(
        api_key=os.environ["AGENT_CHAT_API_KEY"],
        project_id=os.environ.get("AGENT_CHAT_PROJECT_ID", "proj_local"),
        base_url=os.environ.get("AGENT_CHAT_BASE_URL", "http://127.0.0.1:8787"),
    )
    with make_server("127.0.0.1", int(os.environ.get("PORT", "8000")), endpoint.wsgi(lambda environ: None)) as server:
        print(f"agent session endpoint on http://127.0.0.1:{server.server_port}/")
        server.serve_forever()
