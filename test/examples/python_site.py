"""A site for the tests: the Python example behind a stand-in login, and the widget's page.

The login is a server-side session keyed by a random cookie, as a real site's would be; the
example reads the owner from it, never from the request. Prints its URL once it listens.
"""

import os
import secrets
import sys
from http.cookies import SimpleCookie
from socketserver import ThreadingMixIn
from urllib.parse import parse_qs
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "examples", "python"))
from agent_session import SessionEndpoint  # noqa: E402

SIGNED_IN = {}  # session id -> user id


def current_user(environ):
    cookie = SimpleCookie(environ.get("HTTP_COOKIE", ""))
    return SIGNED_IN.get(cookie["sid"].value) if "sid" in cookie else None


endpoint = SessionEndpoint(
    api_key=os.environ["AGENT_CHAT_API_KEY"],
    project_id=os.environ["AGENT_CHAT_PROJECT_ID"],
    base_url=os.environ["AGENT_CHAT_BASE_URL"],
    timeout=int(os.environ.get("AGENT_CHAT_TIMEOUT_MS", "10000")) / 1000,
    sessions_per_minute=int(os.environ.get("AGENT_CHAT_SESSIONS_PER_MINUTE", "20")),
)
session_app = endpoint.wsgi(current_user)


def site(environ, start_response):
    path = environ.get("PATH_INFO", "")
    if path == "/agent-session":
        return session_app(environ, start_response)
    if path == "/login":
        sid = secrets.token_urlsafe(16)
        SIGNED_IN[sid] = parse_qs(environ["QUERY_STRING"])["user"][0]
        start_response("200 OK", [("Set-Cookie", f"sid={sid}; Path=/; HttpOnly"), ("Content-Type", "text/plain")])
        return [b"signed in"]
    static = {"/": os.path.join(HERE, "page.html"), "/agent-chat.iife.js": os.environ.get("WIDGET_SCRIPT", "")}
    if path in static and os.path.isfile(static[path]):
        with open(static[path], "rb") as file:
            body = file.read()
        if path == "/":
            for name in ("PROJECT_ID", "INTEGRATION_ID", "BASE_URL"):
                body = body.replace(b"{{%s}}" % name.encode(), os.environ.get("AGENT_CHAT_" + name, "").encode())
            body = body.replace(b"{{SESSION_ENDPOINT}}", b"/agent-session")
        kind = "text/html; charset=utf-8" if path == "/" else "text/javascript"
        start_response("200 OK", [("Content-Type", kind)])
        return [body]
    start_response("404 Not Found", [("Content-Type", "text/plain")])
    return [b"not found"]


class Server(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class QuietHandler(WSGIRequestHandler):
    def log_message(self, *args):
        pass


with make_server("127.0.0.1", 0, site, server_class=Server, handler_class=QuietHandler) as server:
    print(f"listening on http://127.0.0.1:{server.server_port}", flush=True)
    server.serve_forever()
