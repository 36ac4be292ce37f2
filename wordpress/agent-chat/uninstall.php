<?php
/** Deleting the plugin removes everything it stored: its settings, the API key and its rate-limit windows. */

defined('WP_UNINSTALL_PLUGIN') || exit;

function agent_chat_forget_site(): void
{
    global $wpdb;
    foreach (['agent_chat_base_url', 'agent_chat_project_id', 'agent_chat_integration_id', 'agent_chat_secret', 'agent_chat_launcher'] as $option) {
        delete_option($option);
    }
    $wpdb->query(
        "DELETE FROM {$wpdb->options} WHERE option_name LIKE '\\_transient\\_agent\\_chat\\_%' OR option_name LIKE '\\_transient\\_timeout\\_agent\\_chat\\_%'"
    );
}

if (is_multisite()) {
    foreach (get_sites(['fields' => 'ids', 'number' => 0]) as $site_id) {
        switch_to_blog($site_id);
        agent_chat_forget_site();
        restore_current_blog();
    }
} else {
    agent_chat_forget_site();
}
