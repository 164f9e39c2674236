// The demo data set of `npm run seed`: four companies, 10 teachers, 50 students in five classes, and 30 projects
// spread over the companies, most with a teacher, in varied statuses. Plain data; seed.ts writes it.

export const SEED_COMPANIES: { company_id: number; name: string }[] = [
  { company_id: 1, name: "Northwind Robotics" },
  { company_id: 2, name: "Bluebird Health" },
  { company_id: 3, name: "Greenfield Energy" },
  { company_id: 4, name: "Harbor City Council" },
];

export const SEED_TEACHERS: string[] = [
  "Ada Lovelace",
  "Alan Turing",
  "Grace Hopper",
  "Edsger Dijkstra",
  "Barbara Liskov",
  "Donald Knuth",
  "Margaret Hamilton",
  "John McCarthy",
  "Frances Allen",
  "Niklaus Wirth",
];

const SEED_CLASS_CODES = ["10A", "10B", "11A", "11B", "12A"];

const FIRST_NAMES = ["Liam", "Olivia", "Noah", "Emma", "Mateo", "Amara", "Yuki", "Sofia", "Arjun", "Chloe"];
const LAST_NAMES = ["Nguyen", "Garcia", "Okafor", "Schmidt", "Rossi"];

/** 50 students: every first name with every last name, ten to a class code. */
export const SEED_STUDENTS: { student_name: string; email: string; class_code: string }[] = LAST_NAMES.flatMap(
  (last, l) =>
    FIRST_NAMES.map((first, f) => ({
      student_name: `${first} ${last}`,
      email: `${first}.${last}@students.example.edu`.toLowerCase(),
      class_code: SEED_CLASS_CODES[(l * FIRST_NAMES.length + f) % SEED_CLASS_CODES.length],
    })),
);

/** Statuses used when no PROJECT_STATUS_WORKFLOW is set. */
export const SEED_DEFAULT_STATUSES = ["proposed", "in_progress", "on_hold", "completed", "cancelled"];

export interface SeedProject {
  project_name: string;
  project_desc: string;
  company_id: number;
  project_url: string | null;
  start_date: string;
  end_date: string;
  /** Index into SEED_TEACHERS; null leaves the project unassigned. */
  teacher: number | null;
}

const TOPICS: [string, string][] = [
  ["Warehouse Route Planner", "Plan the shortest picking routes through a warehouse floor."],
  ["Line-Following Robot", "Build and tune a robot that follows a taped line around obstacles."],
  ["Inventory Forecast", "Forecast weekly stock levels from two years of sales data."],
  ["Drone Battery Monitor", "Log drone battery health and warn before a flight runs short."],
  ["Factory Noise Map", "Measure and map noise levels across the assembly hall."],
  ["Spare Parts Catalogue", "A searchable web catalogue of spare parts with photos."],
  ["Appointment Reminder Bot", "Send patients text reminders the day before an appointment."],
  ["Clinic Waiting Times", "Visualise waiting times per clinic and hour of the day."],
  ["Medication Label Reader", "Read medication labels aloud for patients with low vision."],
  ["Step Counter Study", "Compare step counts of three phone apps against a pedometer."],
  ["First Aid Quiz App", "A quiz app that teaches first aid basics in five minutes a day."],
  ["Hospital Menu Survey", "Survey patients on the hospital menu and report the results."],
  ["Solar Panel Tracker", "Track daily output of the school's solar panels."],
  ["Wind Speed Logger", "Log wind speeds on the roof and compare them with forecasts."],
  ["Home Energy Audit", "Audit energy use of five households and suggest savings."],
  ["Battery Recycling Guide", "A guide to where and how to recycle household batteries."],
  ["Heat Pump Explainer", "Short videos explaining how heat pumps work."],
  ["Smart Meter Dashboard", "A dashboard of smart meter readings for the science lab."],
  ["Charging Point Map", "Map public charging points and their opening hours."],
  ["Street Light Outage Reports", "Let residents report broken street lights with a photo."],
  ["Park Bench Census", "Count and photograph every bench in the city's parks."],
  ["Bike Lane Safety Study", "Record near misses on three bike lanes and suggest fixes."],
  ["Library Opening Hours API", "Publish the libraries' opening hours as open data."],
  ["Recycling Day Reminder", "Remind residents which bin goes out on which day."],
  ["Bus Stop Accessibility", "Check every bus stop on two lines for step-free access."],
  ["Council Meeting Summaries", "Summarise council meetings in plain language for residents."],
  ["Playground Inspection Log", "A checklist app for monthly playground inspections."],
  ["Tree Planting Planner", "Choose where new street trees fit best, block by block."],
  ["Flood Sensor Network", "Place water level sensors in three flood-prone streets."],
  ["Community Garden Booking", "Book plots and tools in the community garden."],
];

/** 30 projects over the four companies, 26 with a teacher (every teacher has some), four unassigned. */
export const SEED_PROJECTS: SeedProject[] = TOPICS.map(([project_name, project_desc], i) => {
  // The topics above come in company order: robotics, health, energy, then the city council.
  const company_id = i < 6 ? 1 : i < 12 ? 2 : i < 19 ? 3 : 4;
  const startMonth = (i % 12) + 1;
  const start = new Date(Date.UTC(2025, startMonth - 1, 1 + (i % 20)));
  const end = new Date(start.getTime() + (60 + (i % 5) * 30) * 86_400_000);
  return {
    project_name,
    project_desc,
    company_id,
    project_url: i % 3 === 0 ? `https://projects.example.edu/${slug(project_name)}` : null,
    start_date: isoDate(start),
    end_date: isoDate(end),
    teacher: i % 7 === 6 ? null : (i * 3) % SEED_TEACHERS.length,
  };
});

function slug(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, "-");
}

function isoDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}
