/**
 * Agent Chat for WordPress: a signed-in visitor's session request carries a fresh REST nonce,
 * which WordPress requires before it treats the request as theirs. The nonce is asked for just
 * before each session request (the plugin's action hands one to signed-in visitors only), so nothing
 * visitor-specific is ever printed into a page that a cache may keep.
 */
(function () {
  var script = document.currentScript;
  var url = script && script.getAttribute('data-nonce-url');
  if (!url) return;
  function headers(signal) {
    return fetch(url, { credentials: 'same-origin', cache: 'no-store', signal: signal })
      .then(function (response) {
        return response.ok ? response.text() : '';
      })
      .then(function (nonce) {
        nonce = nonce.trim();
        // A signed-out visitor gets an empty answer: an anonymous session, as it should be.
        return /^[0-9a-f]{10}$/.test(nonce) ? { 'X-WP-Nonce': nonce } : {};
      });
  }
  var chats = document.querySelectorAll('agent-chat');
  for (var i = 0; i < chats.length; i++) chats[i].sessionRequestHeaders = headers;
})();
