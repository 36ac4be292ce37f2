import { mount } from 'svelte';
import App from './App.js';

mount(App, { target: document.getElementById('app') });
