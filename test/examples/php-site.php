<?php
// A site for the tests, run by `php -S`: the PHP example where a site would put it, a stand-in
// for the site's login (a PHP session, which the example's agent_chat_owner_id() reads), and
// the widget's page.
$path = parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH);
if ($path === '/agent-session.php') {
    require __DIR__ . '/../../examples/php/agent-session.php';
} elseif ($path === '/login') {
    session_start();
    $_SESSION['user_id'] = $_GET['user'];
    echo 'signed in';
} elseif ($path === '/') {
    $page = file_get_contents(__DIR__ . '/page.html');
    foreach (['PROJECT_ID', 'INTEGRATION_ID', 'BASE_URL'] as $name) {
        $page = str_replace('{{' . $name . '}}', htmlspecialchars((string) getenv('AGENT_CHAT_' . $name)), $page);
    }
    echo str_replace('{{SESSION_ENDPOINT}}', '/agent-session.php', $page);
} elseif ($path === '/agent-chat.iife.js' && is_file((string) getenv('WIDGET_SCRIPT'))) {
    header('Content-Type: text/javascript');
    readfile(getenv('WIDGET_SCRIPT'));
} else {
    http_response_code(404);
}
