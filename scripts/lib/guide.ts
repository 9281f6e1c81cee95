// The bundled world's resident: a guide standing by the welcome sign in the lobby's plaza. `npm start`
// adds it when the gateway has a model: a gateway agent `guide` (gateway config) that lives in the
// world (plugin config `residents`) and may speak and walk (its tool policy).
export const BUNDLED_GUIDE = {
  name: "Guide",
  home: { roomId: "lobby", tx: 21, ty: 13 },
  get pluginConfig() {
    return {
      residents: { guide: { name: this.name, look: 5, home: this.home } },
      tools: { perAgent: { guide: { enabled: ["ocw_chat_send", "ocw_move_to"] } } },
    };
  },
  // `main` stays: an entries list without it would leave the gateway without its default agent.
  gatewayConfig: { agents: { entries: { main: {}, guide: {} } } },
} as const;
