// The contract every object type implements. One file per type; registry.ts lists them.
import type {
  Affordance,
  Facing,
  InteractOutcomeType,
  ObjectDefinition,
  RoomDefinition,
  TileCoord,
} from "../types.ts";

/** One entry of a list held in an object's state (a note on a board): flat, plain data. */
export type ObjectStateItem = Readonly<Record<string, string | number>>;
export type ObjectStateValue = string | number | boolean | readonly ObjectStateItem[];
export type ObjectState = Record<string, ObjectStateValue>;
/** What an object keeps about one actor, kept while that actor is away too (a tour's progress):
 * flat, plain data, in snapshots. */
export type ObjectRecord = ObjectStateItem;

/** An object's record of an actor, for that actor's eyes: a line of words and where it stands. */
export interface RecordView {
  /** "Tour: 3 of 5 - next: the Pond". */
  text: string;
  /** Under way (a tour started and not finished). */
  active: boolean;
  /** Finished at least once. */
  done: boolean;
}

/** An object's own dealings with one actor, wherever that actor is: its record, and a line the
 * object says to it alone (signed with the object's speaker name, heard in the actor's room). */
export interface ActorDealings {
  /** The object's definition (its Tiled properties). */
  readonly def: ObjectDefinition;
  readonly actorId: string;
  readonly actorName: string;
  record(): ObjectRecord | undefined;
  setRecord(record: ObjectRecord): void;
  /** A chat line to the actor alone, from this object, signed with its type's `speaker` name. */
  say(message: string): void;
  /** The region ids covering the actor's tile now (in its room). */
  placesHere(): readonly string[];
  /** A region's name (any room), or undefined for an unknown id. */
  placeName(regionId: string): string | undefined;
}

export type PropKind = "string" | "int" | "bool";

export interface InteractOutcome {
  type: InteractOutcomeType;
  message?: string;
}

/** What an object type may do to the world while handling an action. */
export interface InteractContext extends ActorDealings {
  readonly objectId: string;
  readonly state: Readonly<ObjectState>;
  /** Simulation time of this tick (ms). */
  readonly nowMs: number;
  /** Replace one state field: bumps the version, updates collision, emits object.state_changed. */
  setState(field: string, value: ObjectStateValue): void;
  /** Move the acting actor to a room and tile (presence events when the room changes). */
  moveActor(roomId: string, tile: TileCoord): void;
  /** Send the acting actor to a room of another world (a cluster room, docs/cluster.md): it leaves
   * this world now, and the handoff is recorded for the host to deliver (transfers.ts). */
  sendActor(world: string, roomId: string, tile: TileCoord): void;
  /** Whether any actor's body overlaps this object's tile. */
  tileOccupied(): boolean;
  /** How many actors other than the acting one stand in a region of this object's room. */
  othersIn(regionId: string): number;
  /** Put the acting actor on this object's tile, stopped and facing `facing`, and bind it to the
   * object (`holder`): the world calls `release` once it moves off, leaves or is carried away. */
  hold(facing: Facing): void;
  /** Whether an actor is in this object's room (a player who walked off to another room or left
   * the world is not). */
  inRoom(actorId: string): boolean;
  /** Post a note, as the acting actor, to the notice board `boardId` of this object's room: the
   * board's own "post" (its limits apply, reach does not: the object posts on the actor's behalf).
   * The board's outcome; invalid_action when there is no such board in the room. */
  postNotice(boardId: string, text: string): InteractOutcome;
}

/** What the operator (not an actor) may do to an object: moderation. */
export interface OperatorContext {
  readonly objectId: string;
  readonly state: Readonly<ObjectState>;
  readonly nowMs: number;
  setState(field: string, value: ObjectStateValue): void;
}

/** An actor moved, anywhere in the world (visit, below): the object's dealings with it. */
export interface VisitContext extends ActorDealings {
  readonly objectId: string;
  readonly state: Readonly<ObjectState>;
  /** Distance from the actor to this object's tile centre, in tiles (Infinity in another room). */
  readonly distanceTiles: number;
  /** Replace one state field, as OperatorContext.setState, the actor named as its cause. */
  setState(field: string, value: ObjectStateValue): void;
}

/** Someone in a creature's room, as it notices them. */
export interface Noticed {
  id: string;
  name: string;
  tx: number;
  ty: number;
}

/** What a creature (an object that moves by itself) may know and do each tick: roam.ts makes it. */
export interface RoamContext {
  readonly objectId: string;
  readonly state: Readonly<ObjectState>;
  readonly def: ObjectDefinition;
  /** Simulation time of this tick (ms). */
  readonly nowMs: number;
  /** The rectangle it lives in: its home region, or its whole room. */
  readonly home: { tx: number; ty: number; widthTiles: number; heightTiles: number };
  /** An integer in [from, to], drawn from the world's seed, the creature and the moment. */
  int(from: number, to: number): number;
  /** Whether it may stand on a tile: in its room (and its home region, when it has one), open, not
   * in a room made private. */
  mayStand(tx: number, ty: number): boolean;
  /** Whether it may swim on a tile: as `mayStand`, but on water (the map's water tiles). */
  maySwim(tx: number, ty: number): boolean;
  /** The nearest person within `radiusTiles` of it whose tile it may stand on (ties by id). */
  nearestPerson(radiusTiles: number, except?: string): Noticed | undefined;
  /** The nearest person within `radiusTiles` of it anywhere in its home, not in a private place
   * (a fish sees whoever stands at its water's edge; ties by id). */
  nearestOnShore(radiusTiles: number): Noticed | undefined;
  /** A person in its room, by id. */
  person(id: string): Noticed | undefined;
  /** Replace state fields without an event or a version: a creature's step is not news (its
   * position reaches browsers with each patch and agents when they look). */
  quietly(fields: Readonly<ObjectState>): void;
}

export interface ObjectTypeHandler {
  readonly objectType: string;
  /** Required Tiled properties and their types; checked by the loader. */
  readonly props: Readonly<Record<string, PropKind>>;
  /** Tiled properties it may have, and their types; checked by the loader when present. */
  readonly optionalProps?: Readonly<Record<string, PropKind>>;
  /** What it does and what its properties mean, in a sentence for the world builder's table
   * (worlds/README.md, written from the registry by `npm run gen:schemas`). */
  readonly about: string;
  /** Every action this type understands (affordances() lists the ones that make sense right now). */
  readonly actions: readonly string[];
  /** Cross-map checks (e.g. portal targets); returns the offending field and problem. */
  validate?(
    def: ObjectDefinition,
    rooms: Readonly<Record<string, RoomDefinition>>,
  ): { field: string; problem: string } | undefined;
  initialState(def: ObjectDefinition): ObjectState;
  affordances(state: Readonly<ObjectState>): Affordance[];
  /** Whether the object's tile is blocked in this state (closed doors). */
  blocksTile?(state: Readonly<ObjectState>): boolean;
  interact(ctx: InteractContext, action: string, params: Readonly<Record<string, unknown>>): InteractOutcome;
  /** An actor stepped onto the object's tile (a portal carries it through). */
  enter?(ctx: InteractContext): InteractOutcome | undefined;
  /** The actor bound to the object in this state (a seat's occupant), if any. */
  holder?(state: Readonly<ObjectState>): string | undefined;
  /** The actor whose move the object waits for in this state (a game's player on turn), if any: a
   * resident it names is woken to make it (src/residents/wake.ts). */
  awaits?(state: Readonly<ObjectState>): string | undefined;
  /** What one who looks after objects of this type would do for it now (a thirsty plant: "water"),
   * if anything: a resident that tends this type does it on its own (src/residents/tending.ts). */
  care?(state: Readonly<ObjectState>, nowMs: number): string | undefined;
  /** Simulation time went on (called once per tick, after the tick's inputs, in object id order
   * per room): a state that changes with time alone (a plant grows) changes here, so it is the
   * same in every replay. Only objects whose type has it are visited. */
  elapse?(ctx: OperatorContext): void;
  /** Called once per tick after `elapse`, for an object that moves by itself (a creature): the
   * world's seeded rules, so every replay moves it alike. */
  roam?(ctx: RoamContext): void;
  /** Where it stands now, for an object that moves (its definition's tile otherwise). */
  tileOf?(state: Readonly<ObjectState>): TileCoord;
  /** A new definition came (fit-definition.ts) and the object is still there: its state as the new map
   * holds it (a creature its region no longer covers moves back in), or undefined to start afresh. */
  refit?(state: Readonly<ObjectState>, def: ObjectDefinition, room: RoomDefinition): ObjectState | undefined;
  /** The holder moved off, left or was carried away: let it go. */
  release?(ctx: OperatorContext): void;
  /** The region this object makes private in this state: chat said inside it is heard only inside,
   * and chat from outside does not reach in (src/world/places.ts has the rule). */
  privateRegion?(state: Readonly<ObjectState>): string | undefined;
  /** Actions only the operator may take (moderation), and how. */
  readonly operatorActions?: readonly string[];
  moderate?(ctx: OperatorContext, action: string, params: Readonly<Record<string, unknown>>): InteractOutcome;
  /** An actor stepped onto a new tile anywhere in the world (walked, carried, or arrived in a room);
   * `entered` are the regions it has just walked into. Only objects whose type has it are told, so
   * the world's walking costs nothing more without them. */
  visit?(ctx: VisitContext, entered: readonly string[]): void;
  /** The name this object's chat lines are signed with (a tour speaks as its guide). */
  speaker?(def: ObjectDefinition): string;
  /** What is wrong with a saved record of an actor (ActorDealings.record); types with records have it. */
  checkRecord?(record: ObjectRecord, def: ObjectDefinition): string | undefined;
  /** An actor's record, in words for that actor (the page's progress panel). */
  recordView?(record: ObjectRecord, def: ObjectDefinition, placeName: (id: string) => string): RecordView;
  /** What is wrong with a saved state of this type (a snapshot is checked as strictly as a request). */
  checkState?(state: Readonly<ObjectState>, def: ObjectDefinition): string | undefined;
}
