// Joining: the form (a name, a look, a join code when the world asks one), or straight in from the
// address (a name in it, or a travel link from another gateway's portal).
import type { Connection } from "./net.ts";
import { setStatus } from "./notice-list.ts";
import { $, state, touchFirst } from "./page-state.ts";
import { LOOKS } from "./textures.ts";

function renderLooks(): void {
  const saved = Number(localStorage.getItem("ocw.look") ?? "0");
  const box = $("join-looks");
  box.replaceChildren(
    ...LOOKS.map((look, index) => {
      const label = document.createElement("label");
      label.title = look.name;
      const input = document.createElement("input");
      input.type = "radio";
      input.name = "look";
      input.value = String(index);
      input.checked = index === saved;
      input.setAttribute("aria-label", look.name);
      const swatch = document.createElement("span");
      swatch.className = "swatch";
      const hex = (n: number) => `#${n.toString(16).padStart(6, "0")}`;
      swatch.style.background = `linear-gradient(${hex(look.hair)} 0 22%, ${hex(look.skin)} 22% 45%, ${hex(look.shirt)} 45% 75%, ${hex(look.legs)} 75%)`;
      label.append(input, swatch);
      return label;
    }),
  );
}

function chosenLook(): number | undefined {
  const picked = document.querySelector<HTMLInputElement>('#join-looks input[name="look"]:checked');
  return picked ? Number(picked.value) : undefined;
}

export function showJoin(error = "", needCode = false): void {
  document.body.dataset.phase = "join";
  $("join").hidden = false;
  $("join-error").textContent = error;
  if (needCode) $("join-code").hidden = false;
  $("join-name").focus();
}

/** The travel link was answered (let in, or refused; the connection sends it no more): drop it from
 * the address, so a reload resumes by this gateway's own token instead. */
export function dropClaimFromAddress(): void {
  const url = new URL(location.href);
  url.searchParams.delete("claim");
  history.replaceState(history.state, "", url.href);
}

function join(connection: Connection, name: string, code?: string, look?: number, remember = true): void {
  state.requestedName = name;
  if (remember) localStorage.setItem("ocw.name", name);
  if (look !== undefined) localStorage.setItem("ocw.look", String(look));
  $("join").hidden = true;
  document.body.dataset.phase = "connecting";
  setStatus("connecting", "entering the world…");
  connection.start(name, code, look);
}

export function mountJoinForm(connection: Connection): void {
  $("join").addEventListener("submit", (event) => {
    event.preventDefault();
    const name = $<HTMLInputElement>("join-name").value.trim();
    const code = $<HTMLInputElement>("join-code").value.trim();
    if (name) join(connection, name, code || undefined, chosenLook());
  });
  renderLooks();
  if (touchFirst())
    $("join-text").textContent =
      "A world shared by people and AI agents. Walk with the pad or by tapping the map; tap signs, doors, seats and portals; chat with whoever is near.";
}

/** In at once when the address says who (a name, or a travel link); else the form. */
export function joinFromAddress(connection: Connection): void {
  const params = new URLSearchParams(location.search);
  const presetName = params.get("name") ?? undefined;
  const presetLook = params.has("look") ? Number(params.get("look")) : undefined;
  const claim = params.get("claim") ?? undefined;
  if (claim) {
    // Arrived through a portal from another gateway: join as that person (the server names them).
    connection.claim = claim;
    join(connection, localStorage.getItem("ocw.name") || "Traveller", undefined, undefined, false);
  } else if (presetName)
    join(
      connection,
      presetName.slice(0, 32),
      params.get("code") ?? undefined,
      presetLook !== undefined && presetLook >= 0 && presetLook < LOOKS.length ? presetLook : undefined,
    );
  else {
    $<HTMLInputElement>("join-name").value = localStorage.getItem("ocw.name") ?? "";
    showJoin();
  }
}
