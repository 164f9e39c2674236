// Compile-time checks that two declarations of the same fields agree, for the places the compiler cannot derive one
// from the other. Each is written `true satisfies HasFields<...>`: when a field is missing, the expected type becomes
// a sentence naming the field and what to do, and the compiler prints it:
//   Type 'true' does not satisfy the expected type '"repository_url: stored in ProjectDoc but …"'.
type Verdict<Missing, Message extends string> = [Missing] extends [never] ? true : `${Missing & string}: ${Message}`;

/** `true` when `Target` has every field of `Source`; else "<field>: <message>" for each field it lacks. */
export type HasFields<Target, Source, Message extends string> = Verdict<Exclude<keyof Source, keyof Target>, Message>;

/** `true` when every field of `Source` that `Target` has holds a value `Target` accepts; else the fields that differ. */
export type FieldTypesFit<Target, Source, Message extends string> = Verdict<
  {
    [K in keyof Source & keyof Target]: [Source[K]] extends [Target[K]] ? never : K;
  }[keyof Source & keyof Target],
  Message
>;
