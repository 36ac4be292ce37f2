<?php
/**
 * Where the widget appears: the [agent_chat] shortcode, the agent-chat/chat block and the
 * optional site-wide launcher. All print the same element with the site's own settings; what a
 * post may set is presentational only. The script is the bundled widget, with its integrity hash.
 */

defined('ABSPATH') || exit;

/** What a shortcode or block may set, with the values each accepts (null: any text). */
function agent_chat_presentational(): array
{
    return [
        'mode' => ['inline', 'launcher'],
        'heading' => null,
        'greeting' => null,
        'prompts' => null,
        'theme' => ['light', 'dark', 'auto'],
    ];
}

add_action('wp_enqueue_scripts', static function (): void {
    // Deferred where WordPress can say so (6.3+), else printed in the footer.
    $where = is_wp_version_compatible('6.3') ? ['strategy' => 'defer'] : true;
    wp_register_script('agent-chat', plugins_url('assets/agent-chat.iife.js', AGENT_CHAT_FILE), [], AGENT_CHAT_VERSION, $where);
    wp_register_script('agent-chat-wordpress', plugins_url('assets/wordpress.js', AGENT_CHAT_FILE), ['agent-chat'], AGENT_CHAT_VERSION, $where);
    if (get_option('agent_chat_launcher') === '1' && agent_chat_ready()) {
        wp_enqueue_script('agent-chat-wordpress');
    }
});

/** The widget's Subresource Integrity hash, from the build's sri.json. */
function agent_chat_integrity(): string
{
    static $hash = null;
    if ($hash === null) {
        $sri = json_decode((string) @file_get_contents(__DIR__ . '/../assets/sri.json'), true);
        $hash = is_array($sri) ? (string) ($sri['agent-chat.iife.js'] ?? '') : '';
    }
    return $hash;
}

add_filter('script_loader_tag', static function (string $tag, string $handle): string {
    $extra = '';
    if ($handle === 'agent-chat' && agent_chat_integrity() !== '') {
        $extra = sprintf(' integrity="%s" crossorigin="anonymous"', esc_attr(agent_chat_integrity()));
    } elseif ($handle === 'agent-chat-wordpress') {
        // Where the script asks for a fresh REST nonce (a signed-in visitor's; empty for others).
        $extra = sprintf(' data-nonce-url="%s"', esc_url(admin_url('admin-ajax.php?action=agent_chat_nonce')));
    }
    // The tag with the src (an inline script another plugin added may come first).
    return $extra === '' ? $tag : (string) preg_replace('/<script\b(?=[^>]*\ssrc=)/', '<script' . $extra, $tag, 1);
}, 10, 2);

/**
 * The element. Site settings come from the plugin, never from the post: a session endpoint or
 * service URL written into a shortcode or block is ignored.
 */
function agent_chat_element(array $attributes, string $default_mode): string
{
    // Whoever can edit posts reads here what the block editor said: why visitors cannot chat,
    // and who can fix it (the published post is where an Author looks). Visitors read nothing.
    $note = '';
    if (current_user_can('edit_posts')) {
        foreach (agent_chat_editor_lines() as $line) {
            $note .= '<p>' . esc_html($line) . '</p>';
        }
    }
    if (!agent_chat_ready()) {
        // One note a page: the site-wide launcher adds none after the post's own.
        $GLOBALS['agent_chat_on_page'] = $note !== '';
        return $note;
    }
    wp_enqueue_script('agent-chat-wordpress');
    $GLOBALS['agent_chat_on_page'] = true;
    $html = [
        'project-id' => agent_chat_setting('project_id'),
        'integration-id' => agent_chat_setting('integration_id'),
        'base-url' => agent_chat_service_base(agent_chat_setting('base_url')),
        'session-endpoint' => rest_url('agent-chat/v1/session'),
        'mode' => $default_mode,
    ];
    foreach (agent_chat_presentational() as $name => $allowed) {
        $value = isset($attributes[$name]) && is_scalar($attributes[$name]) ? trim((string) $attributes[$name]) : '';
        if ($value !== '' && ($allowed === null || in_array($value, $allowed, true))) {
            $html[$name] = $value;
        }
    }
    $out = '<agent-chat';
    foreach ($html as $name => $value) {
        $out .= sprintf(' %s="%s"', $name, esc_attr($value));
    }
    return $note . $out . '></agent-chat>';
}

add_shortcode('agent_chat', static function ($attributes): string {
    $defaults = array_fill_keys(array_keys(agent_chat_presentational()), '');
    return agent_chat_element(shortcode_atts($defaults, is_array($attributes) ? $attributes : [], 'agent_chat'), 'inline');
});

add_action('init', static function (): void {
    register_block_type(__DIR__ . '/../block', [
        'render_callback' => static function (array $attributes): string {
            return agent_chat_element($attributes, 'inline');
        },
    ]);
});

/**
 * What the block editor's placeholder, and the published post to those who can edit it, say of
 * the setup, in lines, for the user: none when visitors can chat (the editor then says where, by
 * mode), else why they cannot and whom to ask. From the kept setup check (decision 769): a load
 * calls the service only when no result for this setup and plugin version is kept, as the
 * settings page does.
 *
 * @return string[]
 */
function agent_chat_editor_lines(): array
{
    $admin = current_user_can('manage_options');
    $status = agent_chat_setup_status();
    if ($status === null) {
        return [$admin
            ? __('Agent Chat is not set up yet: see Settings → Agent Chat.', 'agent-chat')
            : __('Agent Chat is not set up yet, so visitors see nothing here: ask this site\'s administrator to finish Settings → Agent Chat.', 'agent-chat')];
    }
    if ($status['state'] === 'connected') {
        return [];
    }
    return [
        __('Visitors cannot chat here: the setup check of Agent Chat failed.', 'agent-chat'),
        agent_chat_setup_lines($status)[0],
        $admin
            ? __('See Settings → Agent Chat.', 'agent-chat')
            : __('Ask this site\'s administrator to fix it in Settings → Agent Chat.', 'agent-chat'),
    ];
}

// The editor script reads the lines before it registers the block (JSON with <, > and & as
// \u escapes, so nothing in a line can end the script element).
add_action('enqueue_block_editor_assets', static function (): void {
    $lines = wp_json_encode(agent_chat_editor_lines(), JSON_HEX_TAG | JSON_HEX_AMP | JSON_UNESCAPED_UNICODE);
    wp_add_inline_script(generate_block_asset_handle('agent-chat/chat', 'editorScript'), 'window.agentChatSetupLines = ' . $lines . ';', 'before');
});

/** The site-wide launcher, unless the page already shows the chat. */
add_action('wp_footer', static function (): void {
    if (get_option('agent_chat_launcher') === '1' && empty($GLOBALS['agent_chat_on_page'])) {
        echo agent_chat_element([], 'launcher'); // phpcs:ignore WordPress.Security.EscapeOutput -- built with esc_attr
    }
}, 5);
