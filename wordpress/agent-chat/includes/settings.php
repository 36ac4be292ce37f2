<?php
/**
 * The plugin's settings: Settings → Agent Chat, and the wp-config.php constants that win over it.
 * The API key is write-only: no page ever prints it, this one included.
 */

defined('ABSPATH') || exit;

/** Each plain setting: its wp-config.php constant, its option, its label, where its value comes from. */
function agent_chat_fields(): array
{
    return [
        'base_url' => ['AGENT_CHAT_BASE_URL', 'agent_chat_base_url', __('Service URL', 'agent-chat'),
            __('The address agent-chat-service printed as it started ("listening on …"). Visitors\' browsers connect to it too, so a live site needs an https address they can reach, not 127.0.0.1.', 'agent-chat')],
        'project_id' => ['AGENT_CHAT_PROJECT_ID', 'agent_chat_project_id', __('Project ID', 'agent-chat'),
            __('The --project the service was started with, or a project\'s ID in its console.', 'agent-chat')],
        'integration_id' => ['AGENT_CHAT_INTEGRATION_ID', 'agent_chat_integration_id', __('Integration ID', 'agent-chat'),
            __('The --integration the service was started with, or an ID from its console\'s Integrations page.', 'agent-chat')],
    ];
}

/** A setting's value: the constant when wp-config.php defines it, else the saved option. */
function agent_chat_setting(string $name): string
{
    if ($name === 'api_key') {
        if (defined('AGENT_CHAT_API_KEY')) {
            return (string) AGENT_CHAT_API_KEY;
        }
        // Kept inside an array: WordPress's all-options page (wp-admin/options.php) prints
        // every plain option's value, and shows an array only as "SERIALIZED DATA".
        $secret = get_option('agent_chat_secret', []);
        return is_array($secret) ? (string) ($secret['api_key'] ?? '') : '';
    }
    [$constant, $option] = agent_chat_fields()[$name];
    return defined($constant) ? (string) constant($constant) : (string) get_option($option, '');
}

/** Whether a URL's host names the machine it is read on: localhost, 127.0.0.0/8 or ::1. */
function agent_chat_loopback(string $url): bool
{
    $host = strtolower(trim((string) (wp_parse_url($url)['host'] ?? ''), '[]'));
    return $host === 'localhost' || substr($host, -10) === '.localhost' || $host === '::1'
        || preg_match('/^127(\.\d{1,3}){3}$/', $host) === 1;
}

/** The service base URL without trailing slashes, or null when the key would travel in clear text. */
function agent_chat_service_base(string $base_url): ?string
{
    $parts = wp_parse_url($base_url);
    $scheme = strtolower($parts['scheme'] ?? '');
    $host = $parts['host'] ?? '';
    if ($host === '' || !($scheme === 'https' || ($scheme === 'http' && agent_chat_loopback($base_url)))) {
        return null;
    }
    return untrailingslashit($base_url);
}

/** Whether everything a visitor's session needs is set (whether it works: setup-check.php). */
function agent_chat_ready(): bool
{
    return agent_chat_service_base(agent_chat_setting('base_url')) !== null
        && agent_chat_setting('project_id') !== ''
        && agent_chat_setting('integration_id') !== ''
        && agent_chat_setting('api_key') !== '';
}

/** The key's option is created unloaded: no page load reads it but the session route's. */
function agent_chat_activate(): void
{
    add_option('agent_chat_secret', [], '', 'no');
}

add_action('admin_init', static function (): void {
    foreach (agent_chat_fields() as $name => [$constant, $option]) {
        register_setting('agent_chat', $option, [
            'type' => 'string',
            'show_in_rest' => false,
            'sanitize_callback' => static function ($value) use ($name, $constant, $option) {
                if (defined($constant)) {
                    return get_option($option, ''); // fixed in wp-config.php: the form cannot change it
                }
                $value = trim((string) $value);
                if ($name === 'base_url' && $value !== '' && agent_chat_service_base($value) === null) {
                    add_settings_error($option, 'agent-chat-base-url', __('The service URL must start with https:// (plain http only for localhost): your API key travels on it.', 'agent-chat'));
                    return get_option($option, '');
                }
                return $name === 'base_url' ? esc_url_raw($value, ['https', 'http']) : sanitize_text_field($value);
            },
        ]);
    }
    register_setting('agent_chat', 'agent_chat_secret', [
        'type' => 'object',
        'show_in_rest' => false,
        'sanitize_callback' => static function ($value) {
            $saved = get_option('agent_chat_secret', []);
            if (defined('AGENT_CHAT_API_KEY') || !is_array($value)) {
                return is_array($saved) ? $saved : [];
            }
            if (!empty($value['forget'])) {
                return [];
            }
            $key = trim((string) ($value['api_key'] ?? ''));
            // Write-only: an empty field keeps the saved key (the form never holds it).
            return $key === '' ? (is_array($saved) ? $saved : []) : ['api_key' => $key];
        },
    ]);
    register_setting('agent_chat', 'agent_chat_launcher', [
        'type' => 'boolean',
        'show_in_rest' => false,
        'sanitize_callback' => static function ($value): string {
            return empty($value) ? '' : '1';
        },
    ]);
});

add_action('admin_menu', static function (): void {
    add_options_page(__('Agent Chat', 'agent-chat'), __('Agent Chat', 'agent-chat'), 'manage_options', 'agent-chat', 'agent_chat_settings_page');
});

// The Plugins screen's row leads to the settings, where an owner who has just activated it goes next.
add_filter('plugin_action_links_' . plugin_basename(AGENT_CHAT_FILE), static function (array $links): array {
    if (!current_user_can('manage_options')) {
        return $links;
    }
    $settings = sprintf(
        '<a href="%s">%s</a>',
        esc_url(admin_url('options-general.php?page=agent-chat')),
        esc_html__('Settings', 'agent-chat')
    );
    return array_merge([$settings], $links);
});

function agent_chat_settings_page(): void
{
    if (!current_user_can('manage_options')) {
        return;
    }
    $from_config = __('Set in wp-config.php.', 'agent-chat');
    ?>
    <div class="wrap">
        <h1><?php esc_html_e('Agent Chat', 'agent-chat'); ?></h1>
        <?php // Checked against the service: afresh when the form was just saved, else as kept briefly.
        $status = agent_chat_setup_status(isset($_GET['settings-updated'])); ?>
        <?php if ($status !== null) : ?>
            <?php agent_chat_setup_notice($status); ?>
        <?php else : ?>
            <div class="notice notice-warning inline"><p><?php esc_html_e('Not set up yet: visitors see no chat until the service URL, project, integration and API key are all set.', 'agent-chat'); ?></p></div>
        <?php endif; ?>
        <form method="post" action="options.php">
            <?php settings_fields('agent_chat'); ?>
            <table class="form-table" role="presentation">
                <?php foreach (agent_chat_fields() as $name => [$constant, $option, $label, $help]) : $id = 'agent-chat-' . str_replace('_', '-', $name); ?>
                    <tr>
                        <th scope="row"><label for="<?php echo esc_attr($id); ?>"><?php echo esc_html($label); ?></label></th>
                        <td>
                            <input type="<?php echo $name === 'base_url' ? 'url' : 'text'; ?>" id="<?php echo esc_attr($id); ?>" name="<?php echo esc_attr($option); ?>" class="regular-text" value="<?php echo esc_attr(agent_chat_setting($name)); ?>" <?php disabled(defined($constant)); ?> aria-describedby="<?php echo esc_attr($id . '-help'); ?>" />
                            <p class="description" id="<?php echo esc_attr($id . '-help'); ?>"><?php echo esc_html(defined($constant) ? $from_config : $help); ?></p>
                        </td>
                    </tr>
                <?php endforeach; ?>
                <tr>
                    <th scope="row"><label for="agent-chat-api-key"><?php esc_html_e('API key', 'agent-chat'); ?></label></th>
                    <td>
                        <?php if (defined('AGENT_CHAT_API_KEY')) : ?>
                            <input type="password" id="agent-chat-api-key" class="regular-text" value="" disabled aria-describedby="agent-chat-api-key-help" />
                            <p class="description" id="agent-chat-api-key-help"><?php echo esc_html($from_config); ?></p>
                        <?php else : $saved = agent_chat_setting('api_key') !== ''; ?>
                            <input type="password" id="agent-chat-api-key" name="agent_chat_secret[api_key]" class="regular-text" value="" autocomplete="new-password" aria-describedby="agent-chat-api-key-help" />
                            <p class="description" id="agent-chat-api-key-help">
                                <?php $saved
                                    ? esc_html_e('A key is saved. It is never shown again; type a new one to replace it.', 'agent-chat')
                                    : esc_html_e('The --api-key the service was started with, or a key from its console\'s API keys page. It stays on this server; or define AGENT_CHAT_API_KEY in wp-config.php.', 'agent-chat'); ?>
                            </p>
                            <?php if ($saved) : ?>
                                <p><label><input type="checkbox" name="agent_chat_secret[forget]" value="1" /> <?php esc_html_e('Forget the saved key', 'agent-chat'); ?></label></p>
                            <?php endif; ?>
                        <?php endif; ?>
                    </td>
                </tr>
                <tr>
                    <th scope="row"><?php esc_html_e('Launcher', 'agent-chat'); ?></th>
                    <td><label><input type="checkbox" name="agent_chat_launcher" value="1" <?php checked(get_option('agent_chat_launcher'), '1'); ?> /> <?php esc_html_e('Show the chat button on every page', 'agent-chat'); ?></label></td>
                </tr>
            </table>
            <?php submit_button(); ?>
        </form>
        <h2><?php esc_html_e('Placing the chat', 'agent-chat'); ?></h2>
        <p><?php esc_html_e('Add the "Agent Chat" block, or the shortcode [agent_chat mode="inline" heading="Ask our docs" greeting="Hi!" prompts="How do I start?|Pricing" theme="auto"], to any post or page.', 'agent-chat'); ?></p>
    </div>
    <?php
}
