// The contract every object type implements. One file per type; registry.ts lists them.
import type {
  Affordance,
  InteractOutcomeType,
  ObjectDefinition,
  RoomDefinition,
  TileCoord,
} from "../types.ts";

export type ObjectStateValue = string | number | boolean;
export type ObjectState = Record<string, ObjectStateValue>;

export type PropKind = "string" | "int" | "bool";

export interface InteractOutcome {
  type: InteractOutcomeType;
  message?: string;
}

/** What an object type may do to the world while handling an action. */
export interface InteractContext {
  readonly objectId: string;
  readonly state: Readonly<ObjectState>;
  readonly actorId: string;
  /** Replace one state field: bumps the version, updates collision, emits object.state_changed. */
  setState(field: string, value: ObjectStateValue): void;
  /** Move the acting actor to a room and tile (presence events when the room changes). */
  moveActor(roomId: string, tile: TileCoord): void;
  /** Whether any actor's body overlaps this object's tile. */
  tileOccupied(): boolean;
}

export interface ObjectTypeHandler {
  readonly objectType: string;
  /** Required Tiled properties and their types; checked by the loader. */
  readonly props: Readonly<Record<string, PropKind>>;
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
}
