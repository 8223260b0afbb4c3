// The empty server-rendered page: the stock document shell and nothing else.
export default function Home() {
  return null;
}
