<?php
/**
 * The widget's session endpoint (wire contract §2) as the REST route POST agent-chat/v1/session:
 * trades the API key for a one-hour session token whose owner is the signed-in WordPress user,
 * and only when the request proves it came from this site's own pages (a valid X-WP-Nonce).
 */

defined('ABSPATH') || exit;

const AGENT_CHAT_ROUTE = '/agent-chat/v1/session';

add_action('rest_api_init', static function (): void {
    register_rest_route('agent-chat/v1', '/session', [
        'methods' => 'POST',
        'callback' => 'agent_chat_rest_session',
        // Anyone may ask: an anonymous visitor gets an anonymous session.
        'permission_callback' => '__return_true',
    ]);
});

/**
 * A fresh REST nonce for the widget's next session request (assets/wordpress.js asks before each
 * one): a signed-in visitor's, and for a signed-out one an empty answer with 200. WordPress's own
 * `rest-nonce` action refuses signed-out visitors with 400, which every visitor's browser console
 * showed as a failed load. Never cached: a nonce belongs to one user and expires.
 */
add_action('wp_ajax_agent_chat_nonce', static function (): void {
    nocache_headers();
    header('Content-Type: text/plain; charset=utf-8');
    echo wp_create_nonce('wp_rest');
    exit;
});
add_action('wp_ajax_nopriv_agent_chat_nonce', static function (): void {
    nocache_headers();
    header('Content-Type: text/plain; charset=utf-8');
    exit;
});

/**
 * Only this site's pages may read a session: WordPress answers every origin's credentialed
 * request with CORS headers, which would let another site mint through its visitors' browsers.
 */
add_filter('rest_pre_serve_request', static function ($served, $result, $request) {
    if ($request instanceof WP_REST_Request && $request->get_route() === AGENT_CHAT_ROUTE && !headers_sent()) {
        header_remove('Access-Control-Allow-Origin');
        header_remove('Access-Control-Allow-Credentials');
        header_remove('Access-Control-Allow-Methods');
    }
    return $served;
}, 11, 3);

function agent_chat_rest_session(WP_REST_Request $request): WP_REST_Response
{
    // WordPress would replace the answer's Cache-Control with its own no-cache headers for a
    // signed-in user; `no-store` says more (nothing of a session is kept by any cache).
    add_filter('rest_send_nocache_headers', '__return_false', 99);
    // Only a real POST: WordPress takes `?_method=POST` on a GET and wraps the answer in
    // `?_jsonp=`'s call, so another site's script tag would read the session its fetch cannot.
    if (strtoupper((string) ($_SERVER['REQUEST_METHOD'] ?? '')) !== 'POST') {
        return agent_chat_rest_error(405, 'method_not_allowed', 'Ask for a session with POST.', ['Allow' => 'POST']);
    }
    /**
     * The client address the limit counts under. Behind a reverse proxy REMOTE_ADDR is the proxy:
     * return the address your proxy vouches for.
     */
    $address = (string) apply_filters('agent_chat_client_address', $_SERVER['REMOTE_ADDR'] ?? '', $request);
    $wait = agent_chat_rate_limit($address);
    if ($wait !== null) {
        return agent_chat_rest_error(429, 'rate_limited', 'Too many sessions requested; try again later.', ['Retry-After' => (string) $wait]);
    }
    $base = agent_chat_service_base(agent_chat_setting('base_url'));
    $api_key = agent_chat_setting('api_key');
    $project = agent_chat_setting('project_id');
    if ($base === null || $api_key === '' || $project === '') {
        return agent_chat_rest_error(500, 'misconfigured', 'Agent Chat is not set up: see Settings → Agent Chat.');
    }
    $owner = agent_chat_request_owner($request);
    /** Seconds the service may take for its whole answer. */
    $timeout = (float) apply_filters('agent_chat_timeout', 10);
    $max_bytes = 64 * 1024;
    $url = $base . '/agent/v1/projects/' . rawurlencode($project) . '/agent/sessions/';
    $response = wp_remote_post($url, [
        'headers' => ['X-API-Key' => $api_key, 'Accept' => 'application/json']
            + ($owner === null ? [] : ['Content-Type' => 'application/json']),
        'body' => $owner === null ? null : wp_json_encode(['external_owner_id' => $owner]),
        // Following a redirect would hand the API key to wherever it points.
        'redirection' => 0,
        'timeout' => $timeout,
        // One byte more than allowed, to tell a full body from a cut one.
        'limit_response_size' => $max_bytes + 1,
        'user-agent' => 'agent-chat-wordpress/' . AGENT_CHAT_VERSION,
    ]);
    if (is_wp_error($response)) {
        $timed_out = stripos($response->get_error_message(), 'timed out') !== false;
        return agent_chat_rest_failed($url, $timed_out
            ? sprintf('The agent service did not answer within %d ms.', (int) round($timeout * 1000))
            : 'The agent service could not be reached.', [], ' (' . $response->get_error_message() . ')');
    }
    $status = (int) wp_remote_retrieve_response_code($response);
    $body = (string) wp_remote_retrieve_body($response);
    if ($status >= 300 && $status < 400) {
        $location = (string) wp_remote_retrieve_header($response, 'location');
        return agent_chat_rest_failed($url, 'The agent service answered with a redirect, which is not followed.',
            [], $location === '' ? '' : " (to {$location})");
    }
    if (strlen($body) > $max_bytes) {
        return agent_chat_rest_failed($url, 'The agent service answered with an oversized body.');
    }
    $type = (string) wp_remote_retrieve_header($response, 'content-type');
    $data = json_decode($body);
    if (preg_match('/^application\/(?:[\w.+-]+\+)?json\b/i', trim($type)) !== 1 || json_last_error() !== JSON_ERROR_NONE) {
        // A proxy's error page: the widget reads JSON, and the site must not serve that page as its own.
        $retry = wp_remote_retrieve_header($response, 'retry-after');
        return agent_chat_rest_failed($url,
            sprintf('The agent service answered %d with %s instead of JSON.', $status, trim(explode(';', $type)[0]) ?: 'no content type'),
            $retry ? ['Retry-After' => (string) $retry] : []);
    }
    if ($status >= 400) {
        // A key revoked or a budget spent after the settings page said "Connected".
        $detail = is_object($data) && isset($data->detail) && is_string($data->detail) ? $data->detail : '';
        error_log(sprintf('[agent-chat] POST %s answered %d: %s', $url, $status, substr((string) preg_replace('/\s+/', ' ', $detail), 0, 300)));
    }
    // The service's own JSON and status (WordPress's REST server writes the same values back out).
    $result = new WP_REST_Response($data, $status);
    $result->header('Cache-Control', 'no-store');
    foreach (['date' => 'Date', 'retry-after' => 'Retry-After'] as $key => $name) {
        $value = wp_remote_retrieve_header($response, $key);
        if ($value) {
            $result->header($name, (string) $value);
        }
    }
    if ($status >= 200 && $status < 300) {
        $result->header('Agent-Chat-Owner-Key', agent_chat_owner_key($owner, $api_key));
    }
    return $result;
}

/**
 * The session's owner: the current user, only when the request carries a valid REST nonce. A
 * page of another site can make the browser send this site's cookies, never a nonce, so a
 * forged call gets an anonymous session. (WordPress itself answers an invalid nonce with 403.)
 */
function agent_chat_request_owner(WP_REST_Request $request): ?string
{
    $user = get_current_user_id();
    $nonce = (string) $request->get_header('X-WP-Nonce');
    if ($user === 0 || $nonce === '' || !wp_verify_nonce($nonce, 'wp_rest')) {
        return null;
    }
    /** The owner id sent to the service for a WordPress user; `wp:` and the user's id by default. */
    $owner = (string) apply_filters('agent_chat_owner_id', 'wp:' . $user, $user);
    return $owner === '' ? null : $owner;
}

/** The owner key of wire contract §2: base64url(HMAC-SHA-256(api key, "agent-chat owner\n" + owner)). */
function agent_chat_owner_key(?string $owner, string $secret): string
{
    if ($owner === null) {
        return '-';
    }
    $mac = hash_hmac('sha256', "agent-chat owner\n" . $owner, $secret, true);
    return rtrim(strtr(base64_encode($mac), '+/', '-_'), '=');
}

/**
 * The JSON 502 for a service that gave no usable answer, and the same in the site's error log
 * with the URL called and `$more` (WordPress's own error): the visitor reads "couldn't start",
 * so the log is where the site's owner learns what changed since the settings page's check.
 */
function agent_chat_rest_failed(string $url, string $detail, array $headers = [], string $more = ''): WP_REST_Response
{
    error_log("[agent-chat] POST {$url} failed: {$detail}{$more}");
    return agent_chat_rest_error(502, 'service_unavailable', $detail, $headers);
}

function agent_chat_rest_error(int $status, string $code, string $detail, array $headers = []): WP_REST_Response
{
    return new WP_REST_Response(['detail' => $detail, 'code' => $code], $status, ['Cache-Control' => 'no-store'] + $headers);
}

/**
 * Fixed one-minute windows per client address (IPv6 per /64) in transients, so every PHP
 * worker shares them. Returns the seconds to wait, or null to go ahead.
 */
function agent_chat_rate_limit(string $address): ?int
{
    /** Sessions a minute per client address; 0 turns the limit off. */
    $limit = (int) apply_filters('agent_chat_sessions_per_minute', 20);
    $key = agent_chat_address_key($address);
    if ($limit <= 0 || $key === null) {
        return null;
    }
    $name = 'agent_chat_limit_' . md5($key);
    $now = time();
    $window = get_transient($name);
    if (!is_array($window) || $now - (int) $window[0] >= 60) {
        $window = [$now, 0];
    }
    $window[1] += 1;
    set_transient($name, $window, max(1, $window[0] + 60 - $now));
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
