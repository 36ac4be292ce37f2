/**
 * The classic-script build (`<script src>`, everything in one file, so one SRI hash covers it):
 * registers the element at once and exposes the API as `globalThis.AgentChat`.
 */
import './define.js';
import { AgentChat } from './components/agent-chat/agent-chat.js';
import * as api from './dom-free.js';
import { runPreloadQueue } from './loader/queue.js';

// A classic script has no exports: the API is the global `AgentChat` (types/iife.d.ts).
(globalThis as { AgentChat?: unknown }).AgentChat = Object.freeze({ ...api, AgentChat });

runPreloadQueue();
