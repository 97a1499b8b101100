import { useEffect } from 'react'
import { RunsList } from '../components/RunsList.tsx'

export function RunsPage({ search }: { search: string }) {
  useEffect(() => {
    document.title = 'Runs · Switchyard'
  }, [])
  return (
    <>
      <div className="page-header">
        <h1 tabIndex={-1}>Runs</h1>
      </div>
      <RunsList search={search} path="/runs" />
    </>
  )
}
