// Persistence of teachers (Mongoose).
import { Schema, type Connection, type Model } from "mongoose";
import { idKey } from "../../db/id-key";

export interface TeacherDoc {
  /** idKey(teacher_id), set by default (see db/id-key.ts). */
  _id: string;
  teacher_id: number;
  teacher_name: string;
  created_at: Date;
  updated_at: Date;
}

const teacherSchema = new Schema<TeacherDoc>(
  {
    _id: {
      type: String,
      default: function (this: TeacherDoc) {
        return this.teacher_id == null ? undefined : idKey(this.teacher_id);
      },
    },
    teacher_id: { type: Number, required: true },
    teacher_name: { type: String, required: true },
  },
  {
    collection: "teachers",
    versionKey: false,
    timestamps: { createdAt: "created_at", updatedAt: "updated_at" },
    autoIndex: false,
  },
);

teacherSchema.index({ teacher_id: 1 }, { unique: true });

export type TeacherModel = Model<TeacherDoc>;

export function createTeacherModel(connection: Connection): TeacherModel {
  return connection.model<TeacherDoc>("Teacher", teacherSchema);
}
