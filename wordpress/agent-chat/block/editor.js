/**
 * The Agent Chat block in the editor: a placeholder where the chat will be, and its presentational
 * settings in the sidebar. Rendered on the server (save is null), so no build step is needed.
 */
(function (blocks, element, blockEditor, components, i18n) {
  var el = element.createElement;
  var __ = i18n.__;
  // Why visitors cannot chat, as the server's kept setup check says (embed.php); none: they can.
  var problem = window.agentChatSetupLines || [];

  blocks.registerBlockType('agent-chat/chat', {
    edit: function (props) {
      var attributes = props.attributes;
      var set = function (name) {
        return function (value) {
          var change = {};
          change[name] = value;
          props.setAttributes(change);
        };
      };
      return el(
        'div',
        blockEditor.useBlockProps(),
        el(
          blockEditor.InspectorControls,
          null,
          el(
            components.PanelBody,
            { title: __('Chat', 'agent-chat') },
            el(components.SelectControl, {
              label: __('Mode', 'agent-chat'),
              value: attributes.mode,
              options: [
                { label: __('In the page', 'agent-chat'), value: 'inline' },
                { label: __('Button in the corner', 'agent-chat'), value: 'launcher' },
              ],
              onChange: set('mode'),
            }),
            el(components.TextControl, {
              label: __('Heading', 'agent-chat'),
              value: attributes.heading,
              onChange: set('heading'),
            }),
            el(components.TextControl, {
              label: __('Greeting', 'agent-chat'),
              value: attributes.greeting,
              onChange: set('greeting'),
            }),
            el(components.TextControl, {
              label: __('Starter questions', 'agent-chat'),
              help: __('Separated by |', 'agent-chat'),
              value: attributes.prompts,
              onChange: set('prompts'),
            }),
            el(components.SelectControl, {
              label: __('Theme', 'agent-chat'),
              value: attributes.theme,
              options: [
                { label: __('Light', 'agent-chat'), value: 'light' },
                { label: __('Dark', 'agent-chat'), value: 'dark' },
                { label: __("As the visitor's system", 'agent-chat'), value: 'auto' },
              ],
              onChange: set('theme'),
            }),
          ),
        ),
        el(
          components.Placeholder,
          {
            icon: 'format-chat',
            label: attributes.heading || __('Agent Chat', 'agent-chat'),
            // The placeholder's group is named by this line; the problem's details are its text.
            instructions: problem.length
              ? problem[0]
              : attributes.mode === 'launcher'
                ? __('Visitors get a chat button in the corner of this page.', 'agent-chat')
                : __('Visitors chat with your agent here.', 'agent-chat'),
          },
          problem.slice(1).map(function (line, index) {
            return el('p', { key: index }, line);
          }),
        ),
      );
    },
    save: function () {
      return null;
    },
  });
})(window.wp.blocks, window.wp.element, window.wp.blockEditor, window.wp.components, window.wp.i18n);
