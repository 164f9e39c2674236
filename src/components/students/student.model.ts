// Persistence of students (Mongoose).
import { Schema, type Connection, type Model } from "mongoose";
import { idKey } from "../../db/id-key";

export interface StudentDoc {
  /** idKey(student_id), set by default (see db/id-key.ts). */
  _id: string;
  student_id: number;
  student_name: string;
  /** Lower-cased; unique. */
  email: string;
  class_code: string;
  created_at: Date;
  updated_at: Date;
}

const studentSchema = new Schema<StudentDoc>(
  {
    _id: {
      type: String,
      default: function (this: StudentDoc) {
        return this.student_id == null ? undefined : idKey(this.student_id);
      },
    },
    student_id: { type: Number, required: true },
    student_name: { type: String, required: true },
    email: { type: String, required: true },
    class_code: { type: String, required: true },
  },
  {
    collection: "students",
    versionKey: false,
    timestamps: { createdAt: "created_at", updatedAt: "updated_at" },
    autoIndex: false,
  },
);

studentSchema.index({ student_id: 1 }, { unique: true });
studentSchema.index({ email: 1 }, { unique: true });
studentSchema.index({ class_code: 1, student_id: 1 });

export type StudentModel = Model<StudentDoc>;

export function createStudentModel(connection: Connection): StudentModel {
  return connection.model<StudentDoc>("Student", studentSchema);
}
