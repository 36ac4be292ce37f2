<?php
/**
 * Installs the test WordPress without wp-cli (Debian has no package of it): WordPress's own
 * installer, users of three roles, and the plugin from its zip as Plugins → Upload would, then
 * activated. Run with PHP's CLI: php install.php <wordpress dir> <plugin zip>. Prints the users.
 */

[, $root, $zip] = $argv;
define('WP_INSTALLING', true);
require $root . '/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/upgrade.php';
require_once ABSPATH . 'wp-admin/includes/file.php';
require_once ABSPATH . 'wp-admin/includes/plugin.php';

// No mail server here: the installer's "your new site" mail is dropped, not attempted.
add_filter('pre_wp_mail', '__return_false');
$installed = wp_install('Agent Chat test site', 'admin', 'admin@example.test', true, '', 'admin-password-1');
if (is_wp_error($installed['password'] ?? null)) {
    fwrite(STDERR, "install failed\n");
    exit(1);
}
update_option('permalink_structure', '/%postname%/');

$users = [];
foreach (['author' => 'author', 'subscriber' => 'subscriber'] as $login => $role) {
    $id = wp_insert_user([
        'user_login' => $login,
        'user_pass' => "$login-password-1",
        'user_email' => "$login@example.test",
        'role' => $role,
    ]);
    if (is_wp_error($id)) {
        fwrite(STDERR, $id->get_error_message() . "\n");
        exit(1);
    }
    $users[$login] = $id;
}
$users['admin'] = get_user_by('login', 'admin')->ID;

WP_Filesystem();
$unzipped = unzip_file($zip, WP_PLUGIN_DIR);
if (is_wp_error($unzipped)) {
    fwrite(STDERR, 'unzip: ' . $unzipped->get_error_message() . "\n");
    exit(1);
}
$activated = activate_plugin('agent-chat/agent-chat.php');
if (is_wp_error($activated)) {
    fwrite(STDERR, 'activate: ' . $activated->get_error_message() . "\n");
    exit(1);
}
echo json_encode(['users' => $users, 'theme' => get_stylesheet(), 'version' => get_bloginfo('version')]), "\n";
