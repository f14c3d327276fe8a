export { type ScriptedChatServer, type ScriptedReply, startScriptedChatServer } from './scripted-chat-server.ts';
