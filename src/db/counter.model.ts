// Id counters: one document per sequence ({ _id: "projects", seq: 41 }).
import { Schema, type Connection, type Model } from "mongoose";

export interface CounterDoc {
  _id: string;
  seq: number;
}

const counterSchema = new Schema<CounterDoc>(
  { _id: { type: String, required: true }, seq: { type: Number, required: true } },
  {
    versionKey: false,
    collection: "counters",
  },
);

export type CounterModel = Model<CounterDoc>;

export function createCounterModel(connection: Connection): CounterModel {
  return connection.model<CounterDoc>("Counter", counterSchema);
}
