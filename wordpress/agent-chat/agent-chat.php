<?php
/**
 * Plugin Name:       Agent Chat
 * Description:       The <agent-chat> widget: an AI agent that answers your visitors from your documentation. A shortcode, a block and an optional site-wide launcher; your API key stays on this server.
 * Version:           0.1.0
 * Requires at least: 6.1
 * Requires PHP:      7.4
 * License:           MIT
 * Text Domain:       agent-chat
 */

defined('ABSPATH') || exit;

const AGENT_CHAT_VERSION = '0.1.0';
define('AGENT_CHAT_FILE', __FILE__);

require_once __DIR__ . '/includes/settings.php';
require_once __DIR__ . '/includes/setup-check.php';
require_once __DIR__ . '/includes/session-route.php';
require_once __DIR__ . '/includes/embed.php';

register_activation_hook(__FILE__, 'agent_chat_activate');
