<?php return ['dependencies' => ['wp-blocks', 'wp-block-editor', 'wp-components', 'wp-element', 'wp-i18n'], 'version' => '0.1.0'];
