<?php
/**
 * The session endpoint of <agent-chat> in plain PHP (PHP 7.4+, the curl extension, no framework).
 *
 * Put this file where the widget's `session-endpoint` points (`/agent-session.php`), set the
 * three environment variables below (or write the values into agent_chat_config()), and make
 * agent_chat_owner_id() return your signed-in user's id. It trades your API key for a one-hour
 * session token (wire contract §1 and §2):
 *
 * - the owner comes from your login state, never from the request;
 * - the service's status and JSON body are passed through, with `Cache-Control: no-store` and
 *   `Agent-Chat-Owner-Key` (base64url of HMAC-SHA-256(secret, "agent-chat owner\n" + owner id),
 *   `-` without owner);
 * - the API key never follows a redirect, and goes over https only (plain http on localhost);
 * - one deadline for the whole answer, at most 64 KiB read, and a JSON 502 when the service is
 *   unreachable, slow, redirects, sends too much or answers something other than JSON;
 * - at most 20 sessions a minute per client address (IPv6 per /64), 429 with Retry-After.
 *
 * In a framework (Laravel, Symfony, Slim), call agent_chat_session() from your route and send
 * the status, headers and body it returns; delete the last lines of this file.
 */

declare(strict_types=1);

/** Your settings. The API key stays on this server: never print it into a page. */
function agent_chat_config(): array
{
    return [
        'api_key' => (string) getenv('AGENT_CHAT_API_KEY'),
        'project_id' => (string) getenv('AGENT_CHAT_PROJECT_ID'),
        // The agent service, e.g. https://agent.example.com
        'base_url' => (string) getenv('AGENT_CHAT_BASE_URL'),
        // Secret of the owner key; by default the API key, which gives the service's own value.
        'owner_key_secret' => (string) getenv('AGENT_CHAT_OWNER_KEY_SECRET'),
        // Deadline for the service's whole answer, in milliseconds.
        'timeout_ms' => (int) (getenv('AGENT_CHAT_TIMEOUT_MS') ?: 10000),
        // Sessions a minute per client address; 0 turns the limit off.
        'sessions_per_minute' => (int) (getenv('AGENT_CHAT_SESSIONS_PER_MINUTE') ?: 20),
        // Where the per-address counts live (one small file, locked while it is updated).
        'limit_file' => sys_get_temp_dir() . '/agent-chat-session-limits.json',
    ];
}

/**
 * Who the visitor is, from YOUR login state; null for an anonymous visitor (they can chat but
 * get no history). Replace the body with your own login; this one reads a PHP session.
 */
function agent_chat_owner_id(): ?string
{
    if (session_status() === PHP_SESSION_NONE) {
        if (!isset($_COOKIE[session_name()])) {
            return null; // no session cookie: signed out (and no session is started for nothing)
        }
        session_start(['read_and_close' => true]);
    }
    $id = $_SESSION['user_id'] ?? null;
    return $id === null || $id === '' ? null : (string) $id;
}

/** The owner key of wire contract §2: the same value the service and the Node helper compute. */
function agent_chat_owner_key(?string $owner, string $secret): string
{
    if ($owner === null || $owner === '') {
        return '-';
    }
    $mac = hash_hmac('sha256', "agent-chat owner\n" . $owner, $secret, true);
    return rtrim(strtr(base64_encode($mac), '+/', '-_'), '=');
}

/**
 * Mints a session and returns [status, headers, body] to send as they are. `$owner_id` returns
 * the visitor's id or null; it is asked only once the visitor is within the limit.
 *
 * @return array{0: int, 1: array<string, string>, 2: string}
 */
function agent_chat_session(array $config, string $method, callable $owner_id, ?string $client_address): array
{
    if ($method !== 'POST') {
        return agent_chat_error(405, 'method_not_allowed', 'Use POST.', ['Allow' => 'POST']);
    }
    $base = agent_chat_service_base($config['base_url']);
    if ($base === null || $config['api_key'] === '' || $config['project_id'] === '') {
        // The site's mistake, not the visitor's: say what to fix in the server's log only.
        error_log('[agent-chat] Set AGENT_CHAT_API_KEY, AGENT_CHAT_PROJECT_ID and AGENT_CHAT_BASE_URL (https, or http on localhost only).');
        return agent_chat_error(500, 'misconfigured', 'The session endpoint is not configured.');
    }
    $wait = agent_chat_rate_limit($config, $client_address);
    if ($wait !== null) {
        return agent_chat_error(429, 'rate_limited', 'Too many sessions requested; try again later.', [
            'Retry-After' => (string) $wait,
        ]);
    }
    // The browser's body is never read: whatever it says about an owner is ignored.
    $owner = $owner_id();
    $owner = $owner === null || $owner === '' ? null : (string) $owner;

    $url = $base . '/agent/v1/projects/' . rawurlencode($config['project_id']) . '/agent/sessions/';
    $max_bytes = 64 * 1024;
    $timeout_ms = max(1, (int) $config['timeout_ms']);
    $body = '';
    $too_large = false;
    $headers = [];
    $curl = curl_init($url);
    curl_setopt_array($curl, [
        CURLOPT_POST => true,
        CURLOPT_POSTFIELDS => $owner === null ? '' : json_encode(['external_owner_id' => $owner]),
        CURLOPT_HTTPHEADER => [
            'X-API-Key: ' . $config['api_key'],
            'Accept: application/json',
            // An empty value stops curl from adding a form type to a body-less POST.
            'Content-Type:' . ($owner === null ? '' : ' application/json'),
            'Expect:',
        ],
        // Following a redirect would hand the API key to wherever it points.
        CURLOPT_FOLLOWLOCATION => false,
        CURLOPT_PROTOCOLS => CURLPROTO_HTTP | CURLPROTO_HTTPS,
        // One deadline for connecting, the headers and the body.
        CURLOPT_TIMEOUT_MS => $timeout_ms,
        CURLOPT_NOSIGNAL => true,
        CURLOPT_MAXFILESIZE => $max_bytes,
        CURLOPT_HEADERFUNCTION => static function ($curl, string $line) use (&$headers): int {
            if (preg_match('/^HTTP\//', $line)) {
                $headers = [];
            } elseif (strpos($line, ':') !== false) {
                [$name, $value] = explode(':', $line, 2);
                $headers[strtolower(trim($name))] = trim($value);
            }
            return strlen($line);
        },
        CURLOPT_WRITEFUNCTION => static function ($curl, string $chunk) use (&$body, &$too_large, $max_bytes): int {
            if (strlen($body) + strlen($chunk) > $max_bytes) {
                $too_large = true;
                return 0; // aborts the transfer
            }
            $body .= $chunk;
            return strlen($chunk);
        },
    ]);
    $ok = curl_exec($curl);
    $errno = curl_errno($curl);
    $curl_error = curl_error($curl);
    $status = (int) curl_getinfo($curl, CURLINFO_RESPONSE_CODE);
    curl_close($curl);

    if ($ok === false) {
        if ($too_large || $errno === CURLE_FILESIZE_EXCEEDED) {
            return agent_chat_failed($url, 'The agent service answered with an oversized body.');
        }
        return agent_chat_failed($url, $errno === CURLE_OPERATION_TIMEDOUT
            ? "The agent service did not answer within {$timeout_ms} ms."
            : 'The agent service could not be reached.', [], " ({$curl_error})");
    }
    if ($status >= 300 && $status < 400) {
        $where = isset($headers['location']) ? " (to {$headers['location']})" : '';
        return agent_chat_failed($url, 'The agent service answered with a redirect, which is not followed.', [], $where);
    }
    $type = $headers['content-type'] ?? '';
    $no_body = in_array($status, [204, 205, 304], true);
    if (!$no_body && !agent_chat_is_json($type, $body)) {
        // An error page of a proxy or load balancer: the widget reads JSON, and the site must
        // not serve that page as its own.
        $shown = trim(explode(';', $type)[0]) ?: 'no content type';
        return agent_chat_failed($url, "The agent service answered {$status} with {$shown} instead of JSON.",
            isset($headers['retry-after']) ? ['Retry-After' => $headers['retry-after']] : []);
    }
    if ($status >= 400) {
        agent_chat_log_refusal($url, $status, $body);
    }
    $out = ['Cache-Control' => 'no-store', 'X-Content-Type-Options' => 'nosniff'];
    foreach (['content-type' => 'Content-Type', 'date' => 'Date', 'retry-after' => 'Retry-After'] as $key => $name) {
        if (isset($headers[$key])) {
            $out[$name] = $headers[$key];
        }
    }
    if ($status >= 200 && $status < 300) {
        $secret = $config['owner_key_secret'] !== '' ? $config['owner_key_secret'] : $config['api_key'];
        $out['Agent-Chat-Owner-Key'] = agent_chat_owner_key($owner, $secret);
    }
    return [$status, $out, $no_body ? '' : $body];
}

/** The base URL without trailing slashes, or null when the key would travel in clear text. */
function agent_chat_service_base(string $base_url): ?string
{
    $parts = parse_url($base_url);
    $scheme = strtolower($parts['scheme'] ?? '');
    $host = strtolower(trim($parts['host'] ?? '', '[]'));
    $loopback = $host === 'localhost' || substr($host, -10) === '.localhost' || $host === '::1'
        || preg_match('/^127(\.\d{1,3}){3}$/', $host) === 1;
    if ($host === '' || !($scheme === 'https' || ($scheme === 'http' && $loopback))) {
        return null;
    }
    return rtrim($base_url, '/');
}

function agent_chat_is_json(string $type, string $body): bool
{
    if (preg_match('/^application\/(?:[\w.+-]+\+)?json\b/i', trim($type)) !== 1) {
        return false;
    }
    json_decode($body);
    return json_last_error() === JSON_ERROR_NONE;
}

/**
 * The JSON 502 for a service that gave no usable answer, and the same in the site's error log
 * with the URL it called (and `$more`, curl's own words): the visitor reads "couldn't start" and
 * the browser shows a status, so the log is where the site's owner learns what to fix.
 *
 * @return array{0: int, 1: array<string, string>, 2: string}
 */
function agent_chat_failed(string $url, string $detail, array $headers = [], string $more = ''): array
{
    error_log("[agent-chat] POST {$url} failed: {$detail}{$more}");
    return agent_chat_error(502, 'service_unavailable', $detail, $headers);
}

/**
 * A refusal of the service (a wrong key or project, a budget spent), passed through to the
 * browser as it is, and written to the site's error log with the service's own words. Never
 * the key: the service's detail names neither it nor the owner.
 */
function agent_chat_log_refusal(string $url, int $status, string $body): void
{
    $answer = json_decode($body, true);
    $detail = is_array($answer) && is_string($answer['detail'] ?? null) ? $answer['detail'] : '';
    $detail = substr((string) preg_replace('/\s+/', ' ', $detail), 0, 300);
    // A service URL ending in /agent/v1 doubles the route, and the service knows no such URL. (A
    // path of a proxy in front of the service is fine: the console is under it too.)
    $hint = $status === 404
        ? " Check the service URL: it is the console's address without /console/ (and without /agent/v1)."
        : '';
    error_log("[agent-chat] POST {$url} answered {$status}: {$detail}{$hint}");
}

/** @return array{0: int, 1: array<string, string>, 2: string} */
function agent_chat_error(int $status, string $code, string $detail, array $headers = []): array
{
    return [$status, [
        'Content-Type' => 'application/json',
        'Cache-Control' => 'no-store',
        'X-Content-Type-Options' => 'nosniff',
    ] + $headers, json_encode(['detail' => $detail, 'code' => $code], JSON_UNESCAPED_SLASHES)];
}

/**
 * Fixed one-minute windows per client address, kept in one locked file so every PHP worker
 * shares them. Returns the seconds to wait, or null to go ahead.
 */
function agent_chat_rate_limit(array $config, ?string $client_address): ?int
{
    $limit = (int) $config['sessions_per_minute'];
    $key = $client_address === null ? null : agent_chat_address_key($client_address);
    if ($limit <= 0 || $key === null) {
        return null;
    }
    $file = fopen($config['limit_file'], 'c+');
    if ($file === false || !flock($file, LOCK_EX)) {
        return null; // a limiter that cannot count must not refuse every visitor
    }
    $now = time();
    $windows = json_decode((string) stream_get_contents($file), true);
    $windows = is_array($windows) ? $windows : [];
    // Forget finished windows, and the oldest beyond 10,000 addresses: the file stays small.
    $windows = array_filter($windows, static function ($w) use ($now): bool {
        return is_array($w) && $now - (int) $w[0] < 60;
    });
    $windows = array_slice($windows, -10000, null, true);
    $window = $windows[$key] ?? [$now, 0];
    unset($windows[$key]);
    $window[1] += 1;
    $windows[$key] = $window;
    ftruncate($file, 0);
    rewind($file);
    fwrite($file, json_encode($windows));
    fflush($file);
    flock($file, LOCK_UN);
    fclose($file);
    return $window[1] > $limit ? max(1, $window[0] + 60 - $now) : null;
}

/** An IPv4 address as it is, an IPv6 address by its /64 (one subscriber holds a whole /64). */
function agent_chat_address_key(string $address): ?string
{
    $packed = @inet_pton(trim($address, '[] '));
    if ($packed === false) {
        return null;
    }
    if (strlen($packed) === 16 && substr($packed, 0, 12) === "\0\0\0\0\0\0\0\0\0\0\xff\xff") {
        $packed = substr($packed, 12); // IPv4-mapped
    }
    return strlen($packed) === 4 ? inet_ntop($packed) : bin2hex(substr($packed, 0, 8)) . '::/64';
}

/** Sends what agent_chat_session() returned. */
function agent_chat_send(array $answer): void
{
    [$status, $headers, $body] = $answer;
    http_response_code($status);
    foreach ($headers as $name => $value) {
        header("{$name}: {$value}");
    }
    echo $body;
}

// Behind a reverse proxy REMOTE_ADDR is the proxy: pass the client address it vouches for instead.
agent_chat_send(agent_chat_session(
    agent_chat_config(),
    $_SERVER['REQUEST_METHOD'] ?? 'GET',
    static function (): ?string {
        return agent_chat_owner_id();
    },
    $_SERVER['REMOTE_ADDR'] ?? null
));
