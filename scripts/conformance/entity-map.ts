// The entities of one test (clients, databases, collections, sessions, cursors, saved results), created from
// createEntities as the format describes, and the pool of connected clients they borrow: a client entity takes a
// MongoClient already connected with the same URI options when a previous test has given one back, so a run does
// not connect hundreds of times. Within one test, two client entities are always two MongoClients.
import {
  MongoClient,
  type AggregationCursor,
  type ClientSession,
  type ClientSessionOptions,
  type Collection,
  type Db,
  type FindCursor,
  type MongoClientOptions,
  type RunCommandCursor,
  type ServerApiVersion,
} from "mongodb";
import { TestSkipped } from "./test-outcome";
import { toReadConcern, toReadPreference, toWriteConcern, withDriverConcerns } from "./driver-values";
import { isPlainDocument, type Doc, type EntityDescription } from "./unified-format";

export type Cursor = FindCursor | AggregationCursor | RunCommandCursor;

export type Entity =
  | { kind: "client"; client: MongoClient; closed: boolean }
  | { kind: "database"; db: Db; client: MongoClient }
  | { kind: "collection"; collection: Collection; client: MongoClient }
  | { kind: "session"; session: ClientSession; client: MongoClient; lsid: unknown }
  | { kind: "cursor"; cursor: Cursor }
  | { kind: "value"; value: unknown };

export type EntityKind = Entity["kind"];

/** Entity fields this runner reads, per entity type; a test naming another one is skipped. */
export const ENTITY_FIELDS: Record<string, readonly string[]> = {
  client: [
    "id",
    "uriOptions",
    "useMultipleMongoses",
    "observeEvents",
    "ignoreCommandMonitoringEvents",
    "observeSensitiveCommands",
    "storeEventsAsEntities",
    "observeLogMessages",
    "observeTracingMessages",
    "serverApi",
  ],
  database: ["id", "client", "databaseName", "databaseOptions"],
  collection: ["id", "database", "collectionName", "collectionOptions"],
  session: ["id", "client", "sessionOptions"],
};

/** Why this runner cannot create the entity, or undefined when it can. */
export function unsupportedEntity(description: EntityDescription): string | undefined {
  const [type] = Object.keys(description);
  const fields = ENTITY_FIELDS[type];
  if (!fields) return `the entity type ${type} is not supported by this runner`;
  const unknown = Object.keys(description[type]).filter((field) => !fields.includes(field));
  if (unknown.length > 0) return `the ${type} field(s) ${unknown.join(", ")} are not supported by this runner`;
  return undefined;
}

/** Connected clients kept across tests, by their URI options. */
export class ClientPool {
  private readonly idle = new Map<string, MongoClient[]>();
  private readonly lent = new Map<MongoClient, string>();
  private readonly everyClient = new Set<MongoClient>();

  constructor(private readonly uri: string) {}

  async borrow(uriOptions: Doc, serverApi: Doc | undefined): Promise<MongoClient> {
    const key = JSON.stringify([uriOptions, serverApi ?? null]);
    let client = this.idle.get(key)?.pop();
    if (!client) {
      const options: MongoClientOptions = {};
      if (serverApi) {
        options.serverApi = {
          version: String(serverApi.version) as ServerApiVersion,
          strict: serverApi.strict as boolean | undefined,
          deprecationErrors: serverApi.deprecationErrors as boolean | undefined,
        };
      }
      client = new MongoClient(withUriOptions(this.uri, uriOptions), options);
      this.everyClient.add(client);
      await client.connect();
    }
    this.lent.set(client, key);
    return client;
  }

  /** Takes a client back for later tests; a client the test closed is dropped. */
  giveBack(client: MongoClient, closed: boolean): void {
    const key = this.lent.get(client);
    this.lent.delete(client);
    if (key === undefined) return;
    if (closed) {
      this.everyClient.delete(client);
      return;
    }
    const list = this.idle.get(key) ?? [];
    list.push(client);
    this.idle.set(key, list);
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.everyClient].map((client) => client.close().catch(() => undefined)));
    this.everyClient.clear();
    this.idle.clear();
    this.lent.clear();
  }
}

/** The connection string with the entity's URI options, which override the ones it has. */
export function withUriOptions(uri: string, uriOptions: Doc): string {
  if (Object.keys(uriOptions).length === 0) return uri;
  const queryAt = uri.indexOf("?");
  let base = queryAt < 0 ? uri : uri.slice(0, queryAt);
  const existing =
    queryAt < 0
      ? []
      : uri
          .slice(queryAt + 1)
          .split("&")
          .filter(Boolean);
  if (!base.slice(base.indexOf("://") + 3).includes("/")) base += "/";
  const overridden = new Set(Object.keys(uriOptions).map((key) => key.toLowerCase()));
  const params = existing.filter((pair) => !overridden.has(pair.split("=")[0].toLowerCase()));
  for (const [key, value] of Object.entries(uriOptions)) {
    if (isPlainDocument(value) && "$$placeholder" in value) {
      throw new TestSkipped(`the URI option ${key} needs a value from the test environment, which this runner lacks`);
    }
    const values = Array.isArray(value) ? value : [value];
    for (const item of values) {
      const text = isPlainDocument(item)
        ? Object.entries(item)
            .map(([k, v]) => `${k}:${String(v)}`)
            .join(",")
        : String(item);
      params.push(`${key}=${encodeURIComponent(text)}`);
    }
  }
  return `${base}?${params.join("&")}`;
}

/** One test's entities. end() ends its sessions, closes its cursors and gives its clients back to the pool. */
export class EntityMap {
  private readonly entities = new Map<string, Entity>();

  constructor(private readonly pool: ClientPool) {}

  has(name: string): boolean {
    return this.entities.has(name);
  }

  add(name: string, entity: Entity): void {
    if (this.entities.has(name)) throw new TestSkipped(`the test file is malformed: the entity ${name} exists already`);
    this.entities.set(name, entity);
  }

  get<K extends EntityKind>(name: string, kind: K): Extract<Entity, { kind: K }> {
    const entity = this.entities.get(name);
    if (!entity) throw new TestSkipped(`the test file is malformed: no entity ${name}`);
    if (entity.kind !== kind)
      throw new TestSkipped(`the test file is malformed: ${name} is a ${entity.kind}, not a ${kind}`);
    return entity as Extract<Entity, { kind: K }>;
  }

  any(name: string): Entity {
    const entity = this.entities.get(name);
    if (!entity) throw new TestSkipped(`the test file is malformed: no entity ${name}`);
    return entity;
  }

  /** Every session entity, e.g. to end them. */
  sessions(): ClientSession[] {
    return [...this.entities.values()].flatMap((entity) => (entity.kind === "session" ? [entity.session] : []));
  }

  async create(description: EntityDescription): Promise<void> {
    const reason = unsupportedEntity(description);
    if (reason) throw new TestSkipped(reason);
    const [type] = Object.keys(description);
    const spec = description[type];
    switch (type) {
      case "client": {
        const uriOptions = (spec.uriOptions ?? {}) as Doc;
        const client = await this.pool.borrow(uriOptions, spec.serverApi as Doc | undefined);
        this.add(spec.id, { kind: "client", client, closed: false });
        return;
      }
      case "database": {
        const { client } = this.get(String(spec.client), "client");
        const db = client.db(String(spec.databaseName), withDriverConcerns((spec.databaseOptions ?? {}) as Doc));
        this.add(spec.id, { kind: "database", db, client });
        return;
      }
      case "collection": {
        const { db, client } = this.get(String(spec.database), "database");
        const options = withDriverConcerns((spec.collectionOptions ?? {}) as Doc);
        this.add(spec.id, {
          kind: "collection",
          collection: db.collection(String(spec.collectionName), options),
          client,
        });
        return;
      }
      case "session": {
        const { client } = this.get(String(spec.client), "client");
        const session = client.startSession(sessionOptions((spec.sessionOptions ?? {}) as Doc));
        this.add(spec.id, { kind: "session", session, client, lsid: session.id });
        return;
      }
    }
  }

  /** reuseClients false: the clients are closed rather than given back (their connections may be out of step). */
  async end(reuseClients: boolean): Promise<void> {
    for (const entity of this.entities.values()) {
      if (entity.kind === "session") await entity.session.endSession().catch(() => undefined);
      if (entity.kind === "cursor") await entity.cursor.close().catch(() => undefined);
    }
    for (const entity of this.entities.values()) {
      if (entity.kind !== "client") continue;
      if (!reuseClients && !entity.closed) {
        await entity.client.close().catch(() => undefined);
        entity.closed = true;
      }
      this.pool.giveBack(entity.client, entity.closed);
    }
    this.entities.clear();
  }
}

function sessionOptions(options: Doc): ClientSessionOptions {
  const known = ["causalConsistency", "snapshot", "defaultTransactionOptions", "defaultTimeoutMS"];
  const unknown = Object.keys(options).filter((key) => !known.includes(key));
  if (unknown.length > 0)
    throw new TestSkipped(`the session option(s) ${unknown.join(", ")} are not supported by this runner`);
  const out: ClientSessionOptions = { ...options } as ClientSessionOptions;
  const transaction = options.defaultTransactionOptions as Doc | undefined;
  if (transaction) {
    out.defaultTransactionOptions = {
      ...transaction,
      ...(transaction.readConcern !== undefined && { readConcern: toReadConcern(transaction.readConcern) }),
      ...(transaction.writeConcern !== undefined && { writeConcern: toWriteConcern(transaction.writeConcern) }),
      ...(transaction.readPreference !== undefined && { readPreference: toReadPreference(transaction.readPreference) }),
    };
  }
  return out;
}
