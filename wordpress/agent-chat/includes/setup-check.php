<?php
/**
 * The settings page's check of the saved setup against the agent service (decision 465): the
 * query API's description of the integration (decision 464) tells a wrong key or project, an
 * unknown integration, and whether this site's origin may use it, before a visitor finds out.
 */

defined('ABSPATH') || exit;

/** Seconds a result is kept: a working setup for a while, a problem (being fixed now) briefly. */
const AGENT_CHAT_CHECK_KEEP_CONNECTED = 300;
const AGENT_CHAT_CHECK_KEEP_PROBLEM = 60;
/** The page waits at most this long for the service (or the session route's time limit, if shorter). */
const AGENT_CHAT_CHECK_TIMEOUT = 5;

/** This site's origin as a browser sends it in `Origin`: scheme, host, and a port that is not the default. */
function agent_chat_site_origin(): string
{
    $parts = wp_parse_url(home_url());
    $scheme = strtolower($parts['scheme'] ?? 'http');
    $origin = $scheme . '://' . strtolower($parts['host'] ?? '');
    $port = (int) ($parts['port'] ?? 0);
    $default = $scheme === 'https' ? 443 : 80;
    return $port > 0 && $port !== $default ? $origin . ':' . $port : $origin;
}

/**
 * The saved setup's status, checked against the service unless a result for the same setup is
 * kept (`$fresh`: check anyway). Null when the setup is not complete. Kept in a transient named
 * by a keyed hash of everything checked, the key included: a change to any of them checks again.
 *
 * @return array{state: string, checked_at: int, detail?: string, public?: bool}|null
 */
function agent_chat_setup_status(bool $fresh = false): ?array
{
    if (!agent_chat_ready()) {
        return null;
    }
    $base = (string) agent_chat_service_base(agent_chat_setting('base_url'));
    $project = agent_chat_setting('project_id');
    $integration = agent_chat_setting('integration_id');
    $api_key = agent_chat_setting('api_key');
    $origin = agent_chat_site_origin();
    // The plugin's version too: an upgraded plugin, which may check more, checks afresh.
    $name = 'agent_chat_check_' . wp_hash(implode("\n", [$base, $project, $integration, $api_key, $origin, AGENT_CHAT_VERSION]));
    $kept = $fresh ? false : get_transient($name);
    if (is_array($kept) && isset($kept['state'], $kept['checked_at'])) {
        return $kept;
    }
    $status = agent_chat_check_setup($base, $project, $integration, $api_key, $origin) + ['checked_at' => time()];
    set_transient($name, $status, $status['state'] === 'connected' ? AGENT_CHAT_CHECK_KEEP_CONNECTED : AGENT_CHAT_CHECK_KEEP_PROBLEM);
    return $status;
}

/**
 * One call to the service: GET the integration on the query API with the key. The key goes
 * nowhere else: no redirect is followed, and nothing of it is kept or shown.
 */
function agent_chat_check_setup(string $base, string $project, string $integration, string $api_key, string $origin): array
{
    $url = $base . '/query/v1/projects/' . rawurlencode($project) . '/integrations/' . rawurlencode($integration) . '/';
    $response = wp_remote_get($url, [
        'headers' => ['X-API-Key' => $api_key, 'Accept' => 'application/json'],
        'redirection' => 0,
        'timeout' => min(AGENT_CHAT_CHECK_TIMEOUT, (float) apply_filters('agent_chat_timeout', 10)),
        'limit_response_size' => 64 * 1024,
        'user-agent' => 'agent-chat-wordpress/' . AGENT_CHAT_VERSION,
    ]);
    if (is_wp_error($response)) {
        return ['state' => 'unreachable', 'detail' => $response->get_error_message()];
    }
    $status = (int) wp_remote_retrieve_response_code($response);
    $type = trim(explode(';', (string) wp_remote_retrieve_header($response, 'content-type'))[0]);
    $data = json_decode((string) wp_remote_retrieve_body($response), true);
    $json = preg_match('/^application\/(?:[\w.+-]+\+)?json$/i', $type) === 1 && is_array($data);
    if ($status === 200 && $json && isset($data['allowed_origins']) && is_array($data['allowed_origins'])) {
        $allowed = array_filter($data['allowed_origins'], 'is_string');
        // An integration with no allowed origins accepts pages anywhere.
        $state = $allowed === [] || in_array($origin, $allowed, true) ? 'connected' : 'origin';
        // This server reached the service, but visitors' browsers stream from the same URL
        // (the element's base-url): on a site anyone else opens, a loopback one is their own computer.
        if ($state === 'connected' && agent_chat_loopback($base) && !agent_chat_loopback($origin)) {
            $state = 'loopback';
        }
        return ['state' => $state, 'public' => !empty($data['public'])];
    }
    if ($json && $status === 401) {
        return ['state' => 'key'];
    }
    if ($json && $status === 404 && ($data['code'] ?? null) === 'integration_not_found') {
        return ['state' => 'integration'];
    }
    if ($status >= 300 && $status < 400) {
        $detail = __('it answered with a redirect, which is not followed (your API key would travel with it)', 'agent-chat');
    } elseif ($json && $status === 404 && preg_match('#/(?:agent|query)/v\d+$#', $base, $api_path) === 1) {
        // An API path copied into the service URL doubles on the plugin's own: not an old service.
        /* translators: %s: the end of the service URL, such as /agent/v1 */
        $detail = sprintf(__('the service URL ends in %s, which the plugin adds itself; remove it', 'agent-chat'), $api_path[0]);
    } elseif ($json && $status === 404) {
        // A service from before the setup check answers 404 for the whole path (decision 492).
        $detail = __('it answered 404 for the setup check, so it is older than this plugin or not an agent service; update the service', 'agent-chat');
    } elseif ($json && isset($data['detail']) && is_string($data['detail'])) {
        /* translators: 1: an HTTP status code, 2: the service's own explanation */
        $detail = sprintf(__('it answered %1$d: %2$s', 'agent-chat'), $status, $data['detail']);
    } else {
        /* translators: 1: an HTTP status code, 2: a content type such as text/html */
        $detail = sprintf(__('it answered %1$d with %2$s instead of JSON', 'agent-chat'), $status, $type !== '' ? $type : __('no content type', 'agent-chat'));
    }
    return ['state' => 'unexpected', 'detail' => $detail];
}

/**
 * What a status says, in lines: what is wrong and how to fix it.
 *
 * @return string[]
 */
function agent_chat_setup_lines(array $status): array
{
    $base = (string) agent_chat_service_base(agent_chat_setting('base_url'));
    $project = agent_chat_setting('project_id');
    $integration = agent_chat_setting('integration_id');
    $origin = agent_chat_site_origin();
    switch ($status['state']) {
        case 'connected':
            $lines = [
                __('Connected: visitors can chat wherever you place the widget.', 'agent-chat'),
                /* translators: 1: the project ID, 2: the integration ID */
                sprintf(__('Project %1$s, integration %2$s.', 'agent-chat'), $project, $integration) . ' ' . (empty($status['public'])
                    ? __('The integration is not public: chats start through this site, with your API key.', 'agent-chat')
                    : __('The integration is public: pages on its allowed origins may also start chats without a site server.', 'agent-chat')),
            ];
            break;
        case 'unreachable':
            $lines = [
                /* translators: 1: the service URL, 2: the error, as WordPress's HTTP client reports it */
                sprintf(__('The agent service at %1$s could not be reached: %2$s', 'agent-chat'), $base, $status['detail'] ?? ''),
                __('Check the service URL, and that the service is running and this server may reach it (a firewall, or WP_HTTP_BLOCK_EXTERNAL in wp-config.php, can stop it). Then check again.', 'agent-chat'),
            ];
            break;
        case 'unexpected':
            $lines = [
                /* translators: 1: the service URL, 2: what it answered */
                sprintf(__('The agent service at %1$s did not answer as expected: %2$s.', 'agent-chat'), $base, $status['detail'] ?? ''),
                __('Check that the service URL is the service\'s own address, as the Install page of its console shows it. Then check again.', 'agent-chat'),
            ];
            break;
        case 'key':
            $lines = [
                /* translators: %s: the project ID */
                sprintf(__('The agent service refused the API key for project %s.', 'agent-chat'), $project),
                __('Check the project ID, and paste the --api-key the service was started with, or a live key of that project from its console\'s API keys page (a revoked or expired key is refused). Save, and the setup is checked again.', 'agent-chat'),
            ];
            break;
        case 'loopback':
            $lines = [
                /* translators: %s: the service URL, such as http://127.0.0.1:8787 */
                sprintf(__('The service URL, %s, is this server\'s own address: visitors\' browsers connect to the service too, and there they find their own computer, so the chat cannot answer them.', 'agent-chat'), $base),
                __('Give the service an https address visitors can reach (a reverse proxy in front of it), and set that as the service URL. Then check again.', 'agent-chat'),
            ];
            break;
        case 'integration':
            $lines = [
                /* translators: 1: the project ID, 2: the integration ID */
                sprintf(__('Project %1$s has no integration %2$s.', 'agent-chat'), $project, $integration),
                __('Copy the integration ID from the Integrations page of the service console, then save.', 'agent-chat'),
            ];
            break;
        default: // 'origin'
            $lines = [
                /* translators: 1: this site's origin, like https://example.com, 2: the integration ID */
                sprintf(__('This site\'s origin, %1$s, is not among the allowed origins of integration %2$s: the chat on its pages is refused.', 'agent-chat'), $origin, $integration),
                /* translators: 1: this site's origin, 2: the integration ID */
                sprintf(__('In the service console, open Integrations, then %2$s; add %1$s to its Allowed origins and save. Then check again.', 'agent-chat'), $origin, $integration),
            ];
    }
    return $lines;
}

/** The status as one of WordPress's notices, with when it was checked and the button that checks again. */
function agent_chat_setup_notice(array $status): void
{
    $lines = agent_chat_setup_lines($status);
    $connected = $status['state'] === 'connected';
    /* translators: %s: a time span, like "2 mins" */
    $lines[] = sprintf(__('Checked %s ago.', 'agent-chat'), human_time_diff((int) $status['checked_at'], time()));
    ?>
    <div class="notice <?php echo $connected ? 'notice-success' : 'notice-error'; ?> inline" id="agent-chat-setup" role="<?php echo $connected ? 'status' : 'alert'; ?>">
        <?php foreach ($lines as $line) : ?><p><?php echo esc_html($line); ?></p><?php endforeach; ?>
        <form method="post" action="<?php echo esc_url(admin_url('admin-post.php')); ?>">
            <input type="hidden" name="action" value="agent_chat_check" />
            <?php wp_nonce_field('agent_chat_check', '_wpnonce', false); ?>
            <p><?php submit_button(__('Check again', 'agent-chat'), 'secondary', 'agent-chat-check', false); ?></p>
        </form>
    </div>
    <?php
}

// "Check again": a fresh check, then back to the settings page (a reload repeats nothing).
add_action('admin_post_agent_chat_check', static function (): void {
    if (!current_user_can('manage_options')) {
        wp_die(esc_html__('Sorry, you are not allowed to manage options for this site.', 'agent-chat'), 403);
    }
    check_admin_referer('agent_chat_check');
    agent_chat_setup_status(true);
    wp_safe_redirect(admin_url('options-general.php?page=agent-chat'));
    exit;
});
